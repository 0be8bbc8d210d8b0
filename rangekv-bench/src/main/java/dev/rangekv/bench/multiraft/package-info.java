/**
 * The multi-raft spike: three in-process nodes hosting many Raft groups of the {@code io.microraft}
 * library, each node with its own fsynced RocksDB, run either with a thread and an fsync per group
 * ({@link dev.rangekv.bench.multiraft.Runtime#PER_GROUP}) or on a node-wide stripe of threads that writes every
 * group's appends of one cycle in one synced batch and sends each peer one message per cycle ({@link
 * dev.rangekv.bench.multiraft.Runtime#NODE_WIDE}). Bench code only: nothing outside rangekv-bench may
 * depend on it; the figures are in BENCHMARKS.md, "Multi-raft spike".
 */
package dev.rangekv.bench.multiraft;
