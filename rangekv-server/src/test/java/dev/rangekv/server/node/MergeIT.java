package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Merging neighbour ranges on a 3-node in-JVM cluster: under writes, repeatedly, and seen by stale clients. */
class MergeIT {
  private static final Logger log = LoggerFactory.getLogger(MergeIT.class);

  @TempDir Path dir;

  @Test
  @Timeout(180)
  void mergeUnderWrites_thenSplitAgainAtTheOldBoundary_keepsEveryWrite() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      router.put("warmup", "1");
      Key boundary = Key.utf8(Writers.key(Writers.KEY_SPACE / 2));
      router.split(boundary);
      Writers writers = new Writers(cluster, 4);
      try (writers) {
        writers.start();
        writers.awaitAcks(200, Duration.ofSeconds(60));
        router.awaitRanges(2, Duration.ofSeconds(30));
        List<RangeDescriptorProto> two = router.ranges();
        assertThat(two).hasSize(2);
        RangeDescriptorProto merged = mover.merge(two.get(0).getRangeId(), two.get(1).getRangeId());
        assertThat(merged.getEndInfinite()).isTrue();
        assertThat(merged.getGeneration()).isGreaterThan(Math.max(two.get(0).getGeneration(), two.get(1).getGeneration()));
        writers.awaitAcks(200, Duration.ofSeconds(60));
        router.split(boundary);
        writers.awaitAcks(200, Duration.ofSeconds(60));
      }
      writers.verify(router, 2);
    }
  }

  @Test
  @Timeout(300)
  void split10_thenMergeBackTo1_keepsAllDataAfterEveryStep() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      Map<String, String> expected = new LinkedHashMap<>();
      for (int i = 0; i < 400; i++) {
        String k = String.format("m-%04d", i);
        router.put(k, "v" + i);
        expected.put(k, "v" + i);
      }
      // ten ranges: every merge position (first, middle, last) still comes up, at half the cost of twenty
      for (int i = 1; i < 10; i++) {
        router.split(Key.utf8(String.format("m-%04d", i * 40)));
      }
      router.awaitRanges(10, Duration.ofSeconds(30));
      checkAll(router, expected);
      long t0 = System.nanoTime();
      int step = 0;
      while (router.ranges().size() > 1) {
        List<RangeDescriptorProto> ranges = router.ranges();
        // merge the pair at a varying position, so left ranges of every kind (first, middle, last) get merged into
        int i = (step * 7) % (ranges.size() - 1);
        RangeDescriptorProto merged = mover.merge(ranges.get(i).getRangeId(), ranges.get(i + 1).getRangeId());
        String k = "after-merge-" + step;
        router.put(k, "x");
        expected.put(k, "x");
        router.awaitRanges(ranges.size() - 1, Duration.ofSeconds(30));
        assertThat(router.ranges()).contains(merged);
        checkAll(router, expected);
        step++;
      }
      log.info("9 merges with checks took ms={}", (System.nanoTime() - t0) / 1_000_000);
      for (int n = 0; n < cluster.size(); n++) {
        assertThat(cluster.node(n).consensus().openRanges()).hasSize(1);
        assertThat(cluster.node(n).store().allRangeStates()).hasSize(1);
      }
    }
  }

  @Test
  @Timeout(180)
  void aClientWithADescriptorFromBeforeAMerge_getsRangeMoved_andSucceedsOnRetry() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      router.put("a", "1");
      router.put("q", "2");
      router.split(Key.utf8("m"));
      router.awaitRanges(2, Duration.ofSeconds(30));
      List<RangeDescriptorProto> before = router.ranges();
      RangeDescriptorProto merged = mover.merge(before.get(0).getRangeId(), before.get(1).getRangeId());

      for (RangeDescriptorProto old : before) {
        String key = old.getStart().isEmpty() ? "a" : "q";
        NodeAdminClient.Located leader = Await.value(Duration.ofSeconds(30), "a leader of the merged range",
            () -> mover.locate(merged.getRangeId()).filter(l -> !l.leaderAddress().isEmpty()));
        StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
            () -> router.kv(leader.leaderAddress()).get(GetRequest.newBuilder().setHeader(ClusterRouter.header(old))
                .setKey(ByteString.copyFromUtf8(key)).build()));
        RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
        assertThat(error.hasRangeMoved()).as("%s", error).isTrue();
        RangeDescriptorProto current = error.getRangeMoved().getCurrentList().stream()
            .filter(d -> ProtoValues.descriptor(d).contains(Key.utf8(key))).findFirst().orElseThrow();
        assertThat(current.getRangeId()).isEqualTo(merged.getRangeId());
        assertThat(current.getGeneration()).isEqualTo(merged.getGeneration());
        GetResponse r = router.kv(leader.leaderAddress()).get(GetRequest.newBuilder()
            .setHeader(ClusterRouter.header(current)).setKey(ByteString.copyFromUtf8(key)).build());
        assertThat(r.getValue().toStringUtf8()).isEqualTo(key.equals("a") ? "1" : "2");
      }
      // The right range's group is gone everywhere; its old id still answers RANGE_MOVED, never data.
      long rightId = before.get(1).getRangeId();
      for (int n = 0; n < cluster.size(); n++) {
        assertThat(cluster.node(n).consensus().openRanges()).doesNotContain(rightId);
        int node = n;
        StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
            () -> router.kv(cluster.config(node).clientAddress()).get(GetRequest.newBuilder()
                .setHeader(ClusterRouter.header(before.get(1))).setKey(ByteString.copyFromUtf8("q")).build()));
        assertThat(RangeKvErrors.fromThrowable(e).orElseThrow().hasRangeMoved()).isTrue();
      }
    }
  }

  private static void checkAll(ClusterRouter router, Map<String, String> expected) {
    Map<String, String> read = new LinkedHashMap<>();
    String previous = null;
    for (KeyValueProto kv : router.scan(Key.EMPTY, RangeEnd.INFINITY, 0)) {
      String k = kv.getKey().toStringUtf8();
      assertThat(previous == null || previous.compareTo(k) < 0).as("ascending at %s", k).isTrue();
      previous = k;
      read.put(k, kv.getValue().toStringUtf8());
    }
    assertThat(read).isEqualTo(expected);
  }
}
