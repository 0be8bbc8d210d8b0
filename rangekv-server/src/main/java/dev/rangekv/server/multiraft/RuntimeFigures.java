package dev.rangekv.server.multiraft;

/**
 * The multi-raft runtime's counters since the engine started, summed over its stripes: what a write
 * costs in cycles, synced writes, envelopes and messages is their rate over the write rate (the node's
 * {@code /metrics}, BENCHMARKS.md "Multi-raft runtime behind the seam").
 *
 * @param cycles stripe cycles run
 * @param syncs synced log writes (one per cycle that wrote anything)
 * @param envelopes envelopes sent to peer nodes
 * @param messages Raft messages in them
 * @param tasks stripe tasks run (incoming envelopes, proposals, MicroRaft's tasks and timers)
 * @param wakeups times a parked stripe was woken by another thread
 * @param appended log entries appended by this node's groups, leading or following
 */
public record RuntimeFigures(long cycles, long syncs, long envelopes, long messages, long tasks, long wakeups,
    long appended) {}
