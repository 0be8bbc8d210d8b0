/**
 * {@code rangekv demo}: a cluster inside this JVM running seed 000's order-events store twice — keyed
 * by time first (the monotonic trap), then by order id (writes spread) — with live lines from the meta
 * range and a summary comparing the two key designs. {@code --offline} keeps the map-only table.
 */
package dev.rangekv.cli.demo;
