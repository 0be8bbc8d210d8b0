/**
 * JMH benchmarks of the partitioners in {@code dev.rangekv.sim.partition}: lookup cost per scheme
 * and node count, and the cost of the 64-bit hashes they use.
 */
package dev.rangekv.bench.partition;
