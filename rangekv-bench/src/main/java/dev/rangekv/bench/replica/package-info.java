/**
 * A replica's apply measured alone with JMH: grouped client writes applied into a real store, the dedupe
 * table included ({@link dev.rangekv.bench.replica.ApplyCostBenchmark}).
 */
package dev.rangekv.bench.replica;
