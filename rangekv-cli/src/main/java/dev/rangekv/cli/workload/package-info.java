/**
 * {@code rangekv workload}: YCSB-like phases (sequential insert, uniform update/read, scans, YCSB A–F)
 * driven against any cluster through the Java client's async API, with live lines, per-phase summaries
 * and machine-wide CPU per operation. Pure parts (key choosers, the zipfian sampler, the latency
 * histogram, phase definitions, /proc parsing, formatting) are separate small classes; only
 * {@code PhaseRunner} and the commands own threads and I/O. Nothing else depends on this package.
 */
package dev.rangekv.cli.workload;
