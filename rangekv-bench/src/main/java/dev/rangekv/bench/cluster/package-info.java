/**
 * Whole-cluster measurements on an in-JVM {@code LocalCluster}: replicated write/read throughput and
 * the cost (threads, heap, direct memory) of hosting many ranges. Plain main classes, not JMH: each
 * run starts real nodes on loopback and prints its figures.
 */
package dev.rangekv.bench.cluster;
