/**
 * JMH microbenchmarks of RangeKV's hot paths. Figures and the commands that made them live in
 * {@code BENCHMARKS.md} at the repository root. Nothing may depend on this package.
 */
package dev.rangekv.bench;
