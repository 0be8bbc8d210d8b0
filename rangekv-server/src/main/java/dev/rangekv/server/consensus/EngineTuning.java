package dev.rangekv.server.consensus;

import java.time.Duration;

/**
 * What the consensus engine takes from a node's Raft tuning (the node's {@code node.RaftTuning}).
 *
 * @param rpcTimeoutMin election timeout lower bound; heartbeats go every half of it
 * @param rpcTimeoutMax election timeout upper bound
 * @param firstElectionMin first election timeout of a new group (a split child's unavailability)
 * @param firstElectionMax upper bound of it
 * @param maxEntryBytes the largest command a range accepts; sizes per-group write buffers
 * @param snapshotThreshold entries between automatic snapshots (durable applied index + log purge)
 * @param retryCacheExpiry how long the engine remembers the reply to a (client id, call id)
 * @param transportThreads worker threads of the engine's transport, owned by the node
 * @param unsafeFlush acknowledge log appends before their fsync completes (benchmarks only)
 */
public record EngineTuning(Duration rpcTimeoutMin, Duration rpcTimeoutMax, Duration firstElectionMin,
    Duration firstElectionMax, int maxEntryBytes, long snapshotThreshold, Duration retryCacheExpiry,
    int transportThreads, boolean unsafeFlush) {}
