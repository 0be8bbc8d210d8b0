package dev.rangekv.server.node;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Ratis settings of a node, chosen for tens to a few hundred ranges per node on a small machine
 * (see shared/notes/ratis.md §5): long heartbeat timeouts (no heartbeat coalescing in Ratis), small
 * per-group log buffers (direct memory is allocated per group), leader-lease linearizable reads,
 * install-snapshot notification mode, and log purging driven by the store's durable applied index.
 *
 * @param rpcTimeoutMin election timeout lower bound; heartbeats go every half of it
 * @param rpcTimeoutMax election timeout upper bound
 * @param firstElectionMin first election timeout of a new group (a split child's unavailability)
 * @param firstElectionMax upper bound of it
 * @param maxEntryBytes the largest command a range accepts; sizes the per-group write buffer
 * @param snapshotThreshold entries between automatic snapshots (durable applied index + log purge)
 * @param retryCacheExpiry how long Ratis remembers a (client id, call id) reply
 * @param grpcWorkerThreads Netty worker threads of Ratis' gRPC server (the node owns them: {@code RaftEventLoops})
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

  /** Ratis properties for a node with its Raft state under {@code raftDir}, listening on {@code port}. */
  public RaftProperties toProperties(Path raftDir, String host, int port) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.resolve("groups").toFile()));
    RaftServerConfigKeys.setRemovedGroupsDir(p, new File(raftDir.toFile(), "removed-groups"));
    GrpcConfigKeys.Server.setHost(p, host);
    GrpcConfigKeys.Server.setPort(p, port);
    // No event loops of Ratis' own (boss and worker group sizes stay 0): Ratis stops those with a 2 s
    // quiet period on every close. The node gives its server grpcWorkerThreads workers (RaftEventLoops).
    // With this many appends in flight to a follower, GrpcLogAppender sends heartbeats only and waits
    // up to a heartbeat interval (rpc.timeout.min / 2) before sending more entries; the default of 8 is
    // easily reached by concurrent writers to one range. Entries are in the log cache anyway.
    GrpcConfigKeys.Server.setLeaderOutstandingAppendsMax(p, 128);

    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(rpcTimeoutMin));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(rpcTimeoutMax));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, millis(firstElectionMin));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, millis(firstElectionMax));
    // A leader that lost its majority's heartbeats (a peer died while the other one's replica was still
    // being created or was behind, e.g. a split child) stands again after an election timeout, not the
    // default 10 s: only it holds the newest entries, so the group had no leader for those 10 s, and
    // each link of a chain of fresh split children waited them in turn (ManyDormantRangesIT). Pre-vote
    // still keeps it from disrupting a leader the others follow.
    RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(p, millis(rpcTimeoutMax));
    // A leader retries a follower that fails (down, or its replica not yet open) every heartbeat
    // interval at most, not every 5 s after 30 failures: a replica that (re)opens, e.g. a node back from
    // a restart creating the split children it missed, hears from its leader within a heartbeat, and a
    // chain of such children catches up one heartbeat per link, not 5 s. A failing follower then costs
    // what a live one costs: one call per heartbeat interval.
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, "1ms,10, " + rpcTimeoutMin.dividedBy(2).toMillis() + "ms,100000000");

    // Linearizable reads: ReadIndex, skipped while the leader holds its lease (bounded clock drift).
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);

    // Per-group buffers: one direct write buffer per group must hold the largest entry.
    SizeInBytes entry = SizeInBytes.valueOf(maxEntryBytes);
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, entry);
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(maxEntryBytes + 8L));
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(maxEntryBytes + (2L << 20)));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("8MB"));
    RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf("1MB"));
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 2);
    RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, SizeInBytes.valueOf("16MB"));
    RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("16MB"));
    RaftServerConfigKeys.Log.setQueueByteLimit(p, SizeInBytes.valueOf("16MB"));

    // The store is the snapshot: its durable applied index lets Ratis purge the log; no transfer yet.
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, snapshotThreshold);
    RaftServerConfigKeys.Snapshot.setTriggerWhenRemoveEnabled(p, false);
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, 1000);
    // Metadata entries only advance the commit index in the log; they double the entries per write.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);

    // A follower chains each appendEntries' log append after the previous one's completion, which is
    // its fsync (RATIS-2235): one fsync per leader RPC, strictly in turn, so concurrent writers never
    // share a flush and writes/s = 1 / fsync time. Off, appends go in stream order without waiting
    // and the log worker batches them into one fsync (RATIS-2387; BENCHMARKS.md "Replication: throughput").
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);

    RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, unsafeFlush);
    RaftServerConfigKeys.RetryCache.setExpiryTime(p, millis(retryCacheExpiry));
    overrides(System.getProperties()).forEach(p::set);
    return p;
  }

  /** Prefix of the JVM system properties that set a Ratis key directly (for experiments: BENCHMARKS.md). */
  public static final String OVERRIDE_PREFIX = "rangekv.ratis.";

  /**
   * The Ratis keys set by {@code -Drangekv.ratis.<ratis key>=<value>} JVM options, which win over the
   * settings above: e.g. {@code -Drangekv.ratis.raft.server.log.force.sync.num=16}.
   */
  static java.util.Map<String, String> overrides(java.util.Properties system) {
    java.util.Map<String, String> keys = new java.util.TreeMap<>();
    for (String name : system.stringPropertyNames()) {
      if (name.startsWith(OVERRIDE_PREFIX) && name.length() > OVERRIDE_PREFIX.length()) {
        keys.put(name.substring(OVERRIDE_PREFIX.length()), system.getProperty(name));
      }
    }
    return keys;
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }
}
