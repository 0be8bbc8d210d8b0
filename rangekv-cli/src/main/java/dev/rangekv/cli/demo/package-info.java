/**
 * {@code rangekv demo}: a cluster inside this JVM running an order-events store three times: keyed by
 * time (the monotonic trap), by order id (writes spread, time order lost) and by (bucket, time) through
 * {@code BucketedKeyspace} (writes spread, time order kept by merged scans); live lines from the meta
 * range, the last-minute query per key design and a summary comparing them. {@code --offline} keeps the
 * map-only table.
 */
package dev.rangekv.cli.demo;
