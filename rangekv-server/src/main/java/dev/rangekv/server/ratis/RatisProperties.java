package dev.rangekv.server.ratis;

import dev.rangekv.server.consensus.EngineTuning;
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
 * The Ratis properties of a node's {@link EngineTuning}: no heartbeat coalescing in Ratis, so long
 * heartbeat timeouts; direct memory allocated per group, so small per-group log buffers; leader-lease
 * linearizable reads; install-snapshot notification mode (the span transfer installs); log purging
 * driven by the store's durable applied index. Stateless.
 */
public final class RatisProperties {
  private RatisProperties() {}

  /** Ratis properties for a node with its Raft state under {@code raftDir}, listening on {@code port}. */
  public static RaftProperties of(EngineTuning t, Path raftDir, String host, int port) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.resolve("groups").toFile()));
    RaftServerConfigKeys.setRemovedGroupsDir(p, new File(raftDir.toFile(), "removed-groups"));
    GrpcConfigKeys.Server.setHost(p, host);
    GrpcConfigKeys.Server.setPort(p, port);
    // No event loops of Ratis' own (boss and worker group sizes stay 0): Ratis stops those with a 2 s
    // quiet period on every close. The node gives its server transportThreads workers (RaftEventLoops).
    // With this many appends in flight to a follower, GrpcLogAppender sends heartbeats only and waits
    // up to a heartbeat interval (rpc.timeout.min / 2) before sending more entries; the default of 8 is
    // easily reached by concurrent writers to one range. Entries are in the log cache anyway.
    GrpcConfigKeys.Server.setLeaderOutstandingAppendsMax(p, 128);

    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(t.rpcTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(t.rpcTimeoutMax()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, millis(t.firstElectionMin()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, millis(t.firstElectionMax()));
    // A leader that lost its majority's heartbeats (a peer died while the other one's replica was still
    // being created or was behind, e.g. a split child) stands again after an election timeout, not the
    // default 10 s: only it holds the newest entries, so the group had no leader for those 10 s, and
    // each link of a chain of fresh split children waited them in turn (ManyDormantRangesIT). Pre-vote
    // still keeps it from disrupting a leader the others follow.
    RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(p, millis(t.rpcTimeoutMax()));
    // A leader retries a follower that fails (down, or its replica not yet open) every heartbeat
    // interval at most, not every 5 s after 30 failures: a replica that (re)opens, e.g. a node back from
    // a restart creating the split children it missed, hears from its leader within a heartbeat, and a
    // chain of such children catches up one heartbeat per link, not 5 s. A failing follower then costs
    // what a live one costs: one call per heartbeat interval.
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, "1ms,10, " + t.rpcTimeoutMin().dividedBy(2).toMillis() + "ms,100000000");

    // Linearizable reads: ReadIndex, skipped while the leader holds its lease (bounded clock drift).
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);

    // Per-group buffers: one direct write buffer per group must hold the largest entry.
    SizeInBytes entry = SizeInBytes.valueOf(t.maxEntryBytes());
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, entry);
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(t.maxEntryBytes() + 8L));
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(t.maxEntryBytes() + (2L << 20)));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("8MB"));
    RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf("1MB"));
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 2);
    RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, SizeInBytes.valueOf("16MB"));
    RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("16MB"));
    RaftServerConfigKeys.Log.setQueueByteLimit(p, SizeInBytes.valueOf("16MB"));

    // The store is the snapshot: its durable applied index lets Ratis purge the log; no transfer yet.
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, t.snapshotThreshold());
    RaftServerConfigKeys.Snapshot.setTriggerWhenRemoveEnabled(p, false);
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, 1000);
    // Metadata entries only advance the commit index in the log; they double the entries per write.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);

    // A follower chains each appendEntries' log append after the previous one's completion, which is
    // its fsync (RATIS-2235): one fsync per leader RPC, strictly in turn, so concurrent writers never
    // share a flush and writes/s = 1 / fsync time. Off, appends go in stream order without waiting
    // and the log worker batches them into one fsync (RATIS-2387; BENCHMARKS.md "Replication: throughput").
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);

    RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, t.unsafeFlush());
    RaftServerConfigKeys.RetryCache.setExpiryTime(p, millis(t.retryCacheExpiry()));
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
