/**
 * The consensus seam's own per-write cost on the write path, measured alone with JMH: the gateway and
 * the engine adapter over engines that answer at once ({@link dev.rangekv.bench.seam.SeamCostBenchmark}).
 */
package dev.rangekv.bench.seam;
