package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.OnMultiRaftEngine;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every split child on the multi-raft engine finds a leader and takes a write; logs the time from the
 * split's answer to the child's first ready leader (BENCHMARKS.md, "Multi-raft runtime behind the seam":
 * run with {@code -Drangekv.splitChildren=N} for a figure; CI makes a few).
 */
@ExtendWith(OnMultiRaftEngine.class)
class SplitChildLeaderIT {
  private static final Logger log = LoggerFactory.getLogger(SplitChildLeaderIT.class);
  @TempDir Path dir;

  @Test
  @Timeout(300)
  void everySplitChild_findsALeader_andTakesAWrite() throws Exception {
    int splits = Integer.getInteger("rangekv.splitChildren", 4);
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests())) {
      List<String> seeds = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        seeds.add(cluster.config(i).clientAddress());
      }
      try (ClusterRouter router = new ClusterRouter(() -> seeds, Duration.ofSeconds(30), cluster::splitChildId)) {
        router.refresh();
        router.put("warm", "1");
        List<Long> millis = new ArrayList<>();
        for (int s = 1; s <= splits; s++) {
          String at = String.format("s%04d", s);
          SplitRangeResponse r = router.split(Key.utf8(at)).orElseThrow();
          long split = System.nanoTime();
          long child = r.getRight().getRangeId();
          String leader = Await.value(Duration.ofSeconds(30), Duration.ofMillis(2), "a ready leader of range " + child,
              () -> readyLeader(cluster, child));
          millis.add((System.nanoTime() - split) / 1_000_000);
          router.put(at, "in-child");
          assertThat(router.get(at)).as("write to child %d led by %s", child, leader).contains("in-child");
        }
        List<Long> sorted = new ArrayList<>(millis);
        sorted.sort(null);
        log.info("split children found leaders n={} p50Millis={} p90Millis={} maxMillis={} over1sCount={} all={}",
            sorted.size(), sorted.get(sorted.size() / 2), sorted.get(sorted.size() * 9 / 10),
            sorted.get(sorted.size() - 1), sorted.stream().filter(m -> m >= 1000).count(), millis);
      }
    }
  }

  private static Optional<String> readyLeader(LocalCluster cluster, long rangeId) {
    for (int i = 0; i < cluster.size(); i++) {
      Leadership l = cluster.node(i).consensus().leadership(rangeId).orElse(null);
      if (l != null && l.ready()) {
        return Optional.of(cluster.config(i).nodeId());
      }
    }
    return Optional.empty();
  }
}
