package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.move.NodeAdminClient;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Idle ranges go dormant (every replica closes its group, storage kept), the first request wakes them
 * and is answered, writes during and after a wake are kept, a replica down while its range was dormant
 * catches up after the range woke, and a restart leaves dormant ranges closed. A pre-split's children
 * are born dormant and serve, merge and move once woken.
 */
class DormantRangeIT {
  private static final int RANGES = 4;
  @TempDir Path dir;

  @ParameterizedTest(name = "on {0}")
  @EnumSource(EngineChoice.class)
  @SuppressWarnings("try") // the UsingEngine resource only scopes the engine choice
  @Timeout(300)
  void idleRangesSleep_wakeOnRequest_keepEveryWrite_andStayClosedAcrossRestarts(EngineChoice engine) throws Exception {
    RaftTuning tuning = RaftTuning.forTests().withDormantAfter(Duration.ofSeconds(2));
    Map<String, String> written = new ConcurrentHashMap<>();
    try (UsingEngine on = UsingEngine.of(engine);
        LocalCluster cluster = LocalCluster.start(3, dir, tuning)) {
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
        assertThat(cluster.node(i).consensus().openRanges()).as("groups open after restart on node %d", i).isEmpty();
      }
      try (ClusterRouter router = ClusterSteps.router(cluster)) {
        router.refresh();
        assertThat(router.ranges()).hasSize(RANGES);
        assertAllRead(router, written);
      }
    }
  }

  /**
   * A pre-split's children are born dormant (docs/architecture.md, "Life of a split"): no replica opens a
   * child's group at the split. A request wakes one and is answered at once, and woken children merge
   * and move like any range, every write kept.
   */
  @Test
  @Timeout(180)
  void childrenBornDormant_openNoGroup_serveAtOnce_andMergeAndMove() throws Exception {
    // idle ranges sleep only after 10 minutes here: every group that opens below was opened by a wake
    RaftTuning tuning = RaftTuning.forTests().withDormantAfter(Duration.ofMinutes(10));
    Map<String, String> written = new ConcurrentHashMap<>();
    try (LocalCluster cluster = LocalCluster.start(4, dir, tuning);
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      for (String k : List.of("a", "p", "x")) {
        put(router, written, k, "v-" + k);
      }
      // from the last point to the first, as the pre-split's chains split: range 1 keeps [.., m)
      long right = splitBornDormant(router, cluster, "t");
      long middle = splitBornDormant(router, cluster, "m");
      List<Integer> holders = List.of(0, 1, 2); // range 1's replicas; node 4 holds nothing yet
      Await.until(Duration.ofSeconds(30), "every replica to record both children born dormant", () -> {
        for (int i : holders) {
          RangeKvNode n = cluster.node(i);
          for (long child : List.of(middle, right)) {
            if (DormancyRecord.dormantAt(n.store(), child).orElse(0) != DormancyRecord.BORN_DORMANT) {
              return false;
            }
          }
        }
        return true;
      });
      for (int i : holders) {
        for (long child : List.of(middle, right)) {
          assertThat(cluster.node(i).directory().replica(child)).as("r%d's group on node %d", child, i + 1).isEmpty();
          assertThat(cluster.node(i).consensus().openRanges()).as("groups open on node %d", i + 1)
              .doesNotContain(child);
        }
      }

      // a read and a write right away: the first request wakes the middle child
      router.refresh();
      assertThat(router.get("p")).contains("v-p");
      put(router, written, "q", "v-q");
      assertThat(router.get("q")).contains("v-q");
      Await.until(Duration.ofSeconds(30), "the middle child's wake recorded on every replica",
          () -> holders.stream().allMatch(i -> DormancyRecord.dormantAt(cluster.node(i).store(), middle).isEmpty()));
      assertThat(holders).allSatisfy(i ->
          assertThat(cluster.node(i).directory().replica(right)).as("the right child, never asked for").isEmpty());

      // the right child merges into the middle one once woken (the controller wakes a merge's right range
      // before its step; a node refuses a merge whose right range it runs no group of)
      assertThat(router.get("x")).contains("v-x");
      RangeDescriptorProto merged = mover.merge(middle, right);
      assertThat(merged.getRangeId()).isEqualTo(middle);
      assertThat(merged.getEndInfinite()).as("merged up to the end: %s", merged).isTrue();

      // and the merged child moves to node 4
      mover.move(middle, cluster.node(0).config().nodeId(), cluster.config(3).clientAddress(), 0);
      put(router, written, "y", "v-y");
      router.refresh();
      assertAllRead(router, written);
      assertThat(cluster.node(3).store().get(Key.utf8("x"))).as("the moved child's data on node 4").isPresent();
    }
  }

  /** Splits the range holding {@code at} there, its new right half born dormant; the child's id. */
  private static long splitBornDormant(ClusterRouter router, LocalCluster cluster, String at) {
    Key key = Key.utf8(at);
    SplitRangeResponse r = router.call(key, (address, d) -> router.admin(address).splitRange(
        SplitRangeRequest.newBuilder().setHeader(ClusterRouter.header(d)).setSplitKey(ProtoValues.bytes(key))
            .setChildRangeId(cluster.splitChildId()).setChildDormant(true).build()));
    router.learn(List.of(r.getLeft(), r.getRight()));
    return r.getRight().getRangeId();
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
        if (!n.directory().replicas().isEmpty() || !n.consensus().openRanges().isEmpty()) {
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
