/**
 * Client benchmarks: the routing cost per request on a cache hit and the grouping cost of a 1,000-key
 * batch get (JMH, no network), and an end-to-end harness against an in-JVM LocalCluster ({@link
 * ClientEndToEndHarness}). Nothing depends on this package.
 */
package dev.rangekv.bench.client;
