/**
 * Routing benchmarks: how fast a range map finds the range of one key and of a sorted batch, for the
 * sorted-array layout against a {@code TreeMap}. Figures live in BENCHMARKS.md.
 */
package dev.rangekv.bench.rangemap;
