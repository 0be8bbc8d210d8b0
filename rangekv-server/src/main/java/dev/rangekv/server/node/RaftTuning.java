package dev.rangekv.server.node;

import dev.rangekv.server.consensus.EngineTuning;
import java.time.Duration;

/**
 * The Raft settings of a node, chosen for tens to a few hundred ranges per node on a small machine: long
 * heartbeat timeouts, small per-group log buffers, leader-lease linearizable reads, snapshots that are
 * the store's durable applied index. The consensus adapter turns them into its engine's settings
 * (see {@link #engine}).
 *
 * @param rpcTimeoutMin election timeout lower bound; heartbeats go every half of it
 * @param rpcTimeoutMax election timeout upper bound
 * @param firstElectionMin first election timeout of a new group (a split child's unavailability)
 * @param firstElectionMax upper bound of it
 * @param maxEntryBytes the largest command a range accepts; sizes the per-group write buffer
 * @param snapshotThreshold entries between automatic snapshots (durable applied index + log purge)
 * @param retryCacheExpiry how long the engine remembers the reply to a (client id, call id)
 * @param grpcWorkerThreads Netty worker threads of the engine's gRPC server (the node owns them)
 * @param unsafeFlush acknowledge Raft log appends before their fsync completes (benchmarks only:
 *     a crash of a majority can then lose acknowledged writes)
 * @param dormantAfter how long a range goes without requests before it goes dormant (its groups close,
 *     storage kept; the next request wakes it); zero: never
 * @param nodeEntriesInFlight Raft entries the ranges this node leads may have in flight together (a range
 *     that would go beyond waits for a slot and gathers the writes arriving meanwhile into its next
 *     entry: group commit across the node's ranges); zero: no bound, each range bounded on its own
 */
public record RaftTuning(
    Duration rpcTimeoutMin,
    Duration rpcTimeoutMax,
    Duration firstElectionMin,
    Duration firstElectionMax,
    int maxEntryBytes,
    long snapshotThreshold,
    Duration retryCacheExpiry,
    int grpcWorkerThreads,
    boolean unsafeFlush,
    Duration dormantAfter,
    int nodeEntriesInFlight) {

  /** {@link #nodeEntriesInFlight} that bounds nothing: each range keeps its own bound only. */
  public static final int NO_NODE_BOUND = 0;

  public RaftTuning {
    if (dormantAfter.isNegative()) {
      throw new IllegalArgumentException("dormantAfter must not be negative: " + dormantAfter);
    }
    if (nodeEntriesInFlight < 0) {
      throw new IllegalArgumentException("nodeEntriesInFlight must not be negative: " + nodeEntriesInFlight);
    }
  }

  /** Production-leaning defaults: 1 s / 2 s timeouts, 300–600 ms first election, dormant after 60 s idle. */
  public static RaftTuning defaults() {
    return new RaftTuning(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofMillis(300),
        Duration.ofMillis(600), dev.rangekv.server.rpc.InputLimits.LARGEST_ENTRY_BYTES, 10_000, Duration.ofSeconds(120), 2, false,
        Duration.ofMillis(dev.rangekv.core.dormancy.DormancyPolicy.DEFAULT_IDLE_MILLIS), NO_NODE_BOUND);
  }

  /**
   * Faster first elections for in-JVM test clusters on loopback; ranges never go dormant unless a test
   * asks ({@link #withDormantAfter}). The Raft timeouts are the defaults' (1-2 s): at 0.5-1 s the leaders'
   * heartbeats (one per follower every half minimum timeout) were a third of a cluster test's CPU, and
   * the client's integration tests took 222 s (335 CPU-s) against 208 s (309 CPU-s) so.
   */
  public static RaftTuning forTests() {
    return new RaftTuning(Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofMillis(100),
        Duration.ofMillis(250), dev.rangekv.server.rpc.InputLimits.LARGEST_ENTRY_BYTES, 10_000, Duration.ofSeconds(120), 2, false, Duration.ZERO,
        NO_NODE_BOUND);
  }

  public RaftTuning withUnsafeFlush(boolean unsafe) {
    return new RaftTuning(rpcTimeoutMin, rpcTimeoutMax, firstElectionMin, firstElectionMax, maxEntryBytes,
        snapshotThreshold, retryCacheExpiry, grpcWorkerThreads, unsafe, dormantAfter, nodeEntriesInFlight);
  }

  /** Ranges go dormant after {@code idle} without requests; zero: never. */
  public RaftTuning withDormantAfter(Duration idle) {
    return new RaftTuning(rpcTimeoutMin, rpcTimeoutMax, firstElectionMin, firstElectionMax, maxEntryBytes,
        snapshotThreshold, retryCacheExpiry, grpcWorkerThreads, unsafeFlush, idle, nodeEntriesInFlight);
  }

  /** At most {@code entries} Raft entries of this node's ranges in flight together; 0: no bound. */
  public RaftTuning withNodeEntriesInFlight(int entries) {
    return new RaftTuning(rpcTimeoutMin, rpcTimeoutMax, firstElectionMin, firstElectionMax, maxEntryBytes,
        snapshotThreshold, retryCacheExpiry, grpcWorkerThreads, unsafeFlush, dormantAfter, entries);
  }

  /** What the consensus engine takes of these settings. */
  public EngineTuning engine() {
    return new EngineTuning(rpcTimeoutMin, rpcTimeoutMax, firstElectionMin, firstElectionMax, maxEntryBytes,
        snapshotThreshold, retryCacheExpiry, grpcWorkerThreads, unsafeFlush);
  }
}
