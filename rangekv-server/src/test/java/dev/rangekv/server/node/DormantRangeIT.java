package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle ranges go dormant (every replica closes its group, storage kept), the first request wakes them
 * and is answered, writes during and after a wake are kept, a replica down while its range was dormant
 * catches up after the range woke, and a restart leaves dormant ranges closed.
 */
class DormantRangeIT {
  private static final int RANGES = 4;
  @TempDir Path dir;

  @Test
  @Timeout(300)
  void idleRangesSleep_wakeOnRequest_keepEveryWrite_andStayClosedAcrossRestarts() throws Exception {
    RaftTuning tuning = RaftTuning.forTests().withDormantAfter(Duration.ofSeconds(2));
    Map<String, String> written = new ConcurrentHashMap<>();
    try (LocalCluster cluster = LocalCluster.start(3, dir, tuning)) {
      try (ClusterRouter router = ClusterSteps.router(cluster)) {
        router.refresh();
        for (int i = 0; i < 40; i++) {
          put(router, written, Writers.key(i * 2_500), "v" + i);
        }
        for (int i = 1; i < RANGES; i++) {
          router.split(Key.utf8(Writers.key(i * 25_000)));
        }
        awaitAllDormant(cluster, List.of(0, 1, 2));

        // the first get wakes the range and returns the value
        assertThat(router.get(Writers.key(2_500))).contains("v1");
        // writes racing the wakes of every range, from several threads, are all kept
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
          List<Future<?>> writes = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            int writer = t;
            writes.add(pool.submit(() -> {
              try (ClusterRouter own = ClusterSteps.router(cluster)) {
                own.refresh();
                for (int i = 0; i < 20; i++) {
                  put(own, written, Writers.key(i * 5_000 + writer + 1), "w" + writer + "-" + i);
                }
              }
            }));
          }
          for (Future<?> f : writes) {
            f.get(120, TimeUnit.SECONDS);
          }
        } finally {
          pool.shutdownNow();
        }
        assertAllRead(router, written);
        awaitAllDormant(cluster, List.of(0, 1, 2));

        // node 3 is down while its ranges are dormant; a range wakes and takes writes without it
        cluster.stop(2);
        for (int i = 0; i < 10; i++) {
          put(router, written, Writers.key(30_000 + i), "while-n3-down-" + i);
        }
        cluster.restart(2);
        // the leader wakes node 3's replica, which catches up
        Await.until(Duration.ofSeconds(60), "node 3 to catch up on the writes made while it was down",
            () -> cluster.node(2).store().get(Key.utf8(Writers.key(30_009))).isPresent());
        assertAllRead(router, written);
        awaitAllDormant(cluster, List.of(0, 1, 2));
      }

      for (int i = 0; i < cluster.size(); i++) {
        cluster.stop(i);
      }
      for (int i = 0; i < cluster.size(); i++) {
        cluster.restart(i);
      }
      for (int i = 0; i < cluster.size(); i++) {
        assertThat(cluster.node(i).engine().server().getGroupIds()).as("groups open after restart on node %d", i).isEmpty();
      }
      try (ClusterRouter router = ClusterSteps.router(cluster)) {
        router.refresh();
        assertThat(router.ranges()).hasSize(RANGES);
        assertAllRead(router, written);
      }
    }
  }

  private static void put(ClusterRouter router, Map<String, String> written, String key, String value) {
    router.put(key, value);
    written.put(key, value);
  }

  private static void assertAllRead(ClusterRouter router, Map<String, String> written) {
    written.forEach((k, v) -> assertThat(router.get(k)).as("key %s", k).contains(v));
  }

  /** Every range replica on {@code nodes} recorded dormant and closed its group. */
  private static void awaitAllDormant(LocalCluster cluster, List<Integer> nodes) {
    Await.until(Duration.ofSeconds(90), "every range dormant on every node", () -> {
      for (int i : nodes) {
        RangeKvNode n = cluster.node(i);
        if (!n.directory().replicas().isEmpty() || n.engine().server().getGroupIds().iterator().hasNext()) {
          return false;
        }
        if (n.store().allRangeStates().size() != RANGES) {
          return false;
        }
        for (var s : n.store().allRangeStates()) {
          if (DormancyRecord.dormantAt(n.store(), s.rangeId()).isEmpty()) {
            return false;
          }
        }
      }
      return true;
    });
  }
}
