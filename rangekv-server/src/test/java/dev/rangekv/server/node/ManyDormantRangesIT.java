package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.server.replica.DormancyRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 18's safety run at a few hundred ranges: a 3-node cluster is split into {@value #RANGES} ranges
 * while two writers write random keys over the whole keyspace, so ranges keep going dormant (2 s idle)
 * and being woken by writes, by further splits and by a node that is killed and restarted in the middle;
 * every acknowledged write then reads back, every range serves, the replicas converge, and with the
 * writers stopped every range goes dormant on every node again.
 */
class ManyDormantRangesIT {
  private static final Logger log = LoggerFactory.getLogger(ManyDormantRangesIT.class);
  private static final int RANGES = 200;

  @TempDir Path dir;

  @Test
  @Timeout(600)
  @Disabled("issue 18, open: 1 of 3 runs on 2026-12-02 with the session-8 fixes passed (211 s); one, with "
      + "another IT suite in the other build slot, logged no range activity for 30 s after the kill and a split "
      + "gave up; one, alone, read back every write but the replica stores had not converged after 240 s with "
      + "every range dormant (a follower left behind by a leader that closed after its 10 commit checks?)")
  void twoHundredRanges_sleepAndWake_underWritesSplitsAndANodeKill_loseNoAcknowledgedWrite() throws Exception {
    // The nodes' own Raft timeouts (1-2 s), not the tests' 0.5-1 s: 600 replicas in one 1 GB JVM on two
    // shared cores pause for most of a second now and then (a collection while node 3 restarts), every
    // leader whose other live replica missed its heartbeats then stepped down at once, and the elections
    // that followed kept the nodes too busy to answer the next ones in time.
    RaftTuning tuning = RaftTuning.defaults().withDormantAfter(Duration.ofSeconds(2));
    try (LocalCluster cluster = LocalCluster.start(3, dir, tuning);
        TestRouter router = TestRouter.of(cluster)) {
      router.refresh();
      router.put("warmup", "1");
      Writers writers = new Writers(cluster, 2);
      long t0 = System.nanoTime();
      try (writers) {
        writers.start();
        writers.awaitAcks(20, Duration.ofSeconds(60));
        int killAt = RANGES * 2 / 3;
        for (int i = 1; i < RANGES; i++) {
          router.split(Key.utf8(Writers.key(i * (Writers.KEY_SPACE / RANGES))));
          if (i == killAt) {
            log.info("splits to {} ranges took ms={}, dormant on node 3: {}; killing node 3", i + 1,
                (System.nanoTime() - t0) / 1_000_000, dormant(cluster.node(2)));
            assertThat(dormant(cluster.node(0))).as("ranges already dormant on node 1").isPositive();
            cluster.stop(2);
          }
        }
        log.info("{} splits took ms={}", RANGES - 1, (System.nanoTime() - t0) / 1_000_000);
        writers.awaitAcks(50, Duration.ofSeconds(60));
        cluster.restart(2);
        writers.awaitAcks(50, Duration.ofSeconds(60));
      }
      log.info("writes acknowledged={} writerRetries={}", writers.ackCount.get(), writers.retries());
      // node 3 learns the children split off while it was down one link at a time (each parent's replica
      // there is woken by its leader, catches up, applies the split, then the child's turn comes): it
      // converged in the first run, but after the 30 s that verify() allows
      writers.awaitReplicasConverge(Duration.ofSeconds(240));
      writers.verify(router, RANGES);
      awaitAllDormant(cluster, RANGES);
      log.info("done in ms={}", (System.nanoTime() - t0) / 1_000_000);
    }
  }

  private static int dormant(RangeKvNode n) {
    int count = 0;
    for (var s : n.store().allRangeStates()) {
      if (DormancyRecord.dormantAt(n.store(), s.rangeId()).isPresent()) {
        count++;
      }
    }
    return count;
  }

  private static void awaitAllDormant(LocalCluster cluster, int ranges) {
    Await.until(Duration.ofSeconds(120), "every range dormant with its group closed on every node", () -> {
      for (int i : List.of(0, 1, 2)) {
        RangeKvNode n = cluster.node(i);
        if (n.raftServer().getGroupIds().iterator().hasNext() || n.store().allRangeStates().size() != ranges
            || dormant(n) != ranges) {
          return false;
        }
      }
      return true;
    });
  }
}
