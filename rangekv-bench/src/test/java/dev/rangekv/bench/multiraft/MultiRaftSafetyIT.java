package dev.rangekv.bench.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spike's two runtimes keep every acknowledged write: after writers on 8 groups and a crash (no
 * last sync), each acknowledged key is on a majority of the three nodes' RocksDB stores, and no message
 * left a node before the sync covering the append or vote it reports (on the pipelined runtime: no
 * leader counted an entry of its own log for commit before it was synced). The last test releases messages
 * before the sync on purpose, to show the runtime's check sees it.
 */
class MultiRaftSafetyIT {
  private static final int GROUPS = 8;
  private static final int WRITERS = 16;
  private static final int WRITES_EACH = 150;

  @TempDir
  Path dir;

  @Test
  @Timeout(120)
  void nodeWide_acknowledgedWritesSurviveACrashOnAMajority_andNothingLeavesBeforeItsSync() throws Exception {
    Outcome outcome = writeAndCrash(Runtime.NODE_WIDE, false);

    assertThat(outcome.acknowledged()).hasSize(WRITERS * WRITES_EACH);
    assertThat(SafetyCheck.lostOnMajority(dir, SpikeCluster.NODES, outcome.acknowledged())).isEmpty();
    assertThat(outcome.counters().unsynced()).isZero();
    assertThat(outcome.counters().failures()).isZero();
    assertThat(outcome.counters().batches()).isPositive();
    // envelopes carry the messages of many groups: fewer envelopes than messages
    assertThat(outcome.counters().envelopes()).isLessThan(outcome.counters().messages());
  }

  @Test
  @Timeout(120)
  void nodeWidePipelined_acknowledgedWritesSurviveACrashOnAMajority_andTheLeaderCountsOnlySyncedEntries()
      throws Exception {
    Outcome outcome = writeAndCrash(Runtime.NODE_WIDE_PIPELINED, false);

    assertThat(outcome.acknowledged()).hasSize(WRITERS * WRITES_EACH);
    assertThat(SafetyCheck.lostOnMajority(dir, SpikeCluster.NODES, outcome.acknowledged())).isEmpty();
    assertThat(outcome.counters().unsynced()).isZero();
    assertThat(outcome.counters().failures()).isZero();
  }

  @Test
  @Timeout(120)
  void perGroup_acknowledgedWritesSurviveACrashOnAMajority_andRepliesFollowTheirSync() throws Exception {
    Outcome outcome = writeAndCrash(Runtime.PER_GROUP, false);

    assertThat(outcome.acknowledged()).hasSize(WRITERS * WRITES_EACH);
    assertThat(SafetyCheck.lostOnMajority(dir, SpikeCluster.NODES, outcome.acknowledged())).isEmpty();
    assertThat(outcome.counters().unsynced()).isZero();
  }

  @Test
  @Timeout(120)
  void nodeWide_releasingBeforeTheSync_isCaughtByTheRuntimeCheck() throws Exception {
    Outcome outcome = writeAndCrash(Runtime.NODE_WIDE, true);

    assertThat(outcome.counters().unsynced()).isPositive();
  }

  private record Outcome(Set<String> acknowledged, NodeCounters counters) {}

  private Outcome writeAndCrash(Runtime runtime, boolean releaseBeforeSync) throws Exception {
    SpikeCluster cluster = SpikeCluster.start(runtime, GROUPS, dir, releaseBeforeSync);
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      cluster.awaitLeaders(Duration.ofSeconds(30));
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < WRITERS; t++) {
        int me = t;
        done.add(writers.submit(() -> {
          byte[] value = new byte[100];
          for (int s = 0; s < WRITES_EACH; s++) {
            String key = ClosedLoop.key(me, s);
            cluster.write((me + s) % GROUPS, key.getBytes(StandardCharsets.US_ASCII), value);
            acknowledged.add(key);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      return new Outcome(Set.copyOf(acknowledged), cluster.counters());
    } finally {
      writers.shutdownNow();
      cluster.crash();
    }
  }
}
