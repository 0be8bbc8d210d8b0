package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges that cannot complete: refused up front when the replica sets differ, and aborted (the right
 * range unfrozen) when a replica does not apply the freeze in time. Neither may lose data or leave a
 * range unable to serve.
 */
class MergeAbortIT {
  private static final Logger log = LoggerFactory.getLogger(MergeAbortIT.class);

  @TempDir Path dir;

  @Test
  @Timeout(180)
  void replicaSetsDiffer_mergeIsRefused_andBothRangesKeepServing() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      router.put("a", "1");
      router.put("q", "2");
      router.split(Key.utf8("m"));
      List<RangeDescriptorProto> two = router.awaitRanges(2, Duration.ofSeconds(30));
      long leftId = two.get(0).getRangeId();
      long rightId = two.get(1).getRangeId();
      // A write applied in the new right group first: moving a split child whose group applied nothing
      // yet fails today (its span snapshot has applied index 0 and Ratis' reload gets no snapshot).
      router.put("p", "0");
      // Left stays on n1..n3, right moves to n1, n2, n4; the left's leader (n1) holds both. n1 leads the
      // right during the move, so the move needs no leadership transfer to the fresh replica.
      mover.transferLeader(rightId, "n1");
      RangeDescriptorProto right = mover.move(rightId, "n3", cluster.config(3).clientAddress(), 0);
      assertThat(right.getReplicasList()).extracting(ReplicaProto::getNodeId).containsExactlyInAnyOrder("n1", "n2", "n4");
      mover.transferLeader(leftId, "n1");
      RangeDescriptorProto leftBefore = mover.locate(leftId).orElseThrow().range();

      StatusRuntimeException e = Assertions.assertThrows(StatusRuntimeException.class,
          () -> mover.merge(leftId, rightId));
      RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
      assertThat(error.hasInvalidArgument()).as("%s", error).isTrue();
      assertThat(error.getMessage()).contains("replica sets differ");

      // Refused before the freeze: the right range was never frozen anywhere and serves at once.
      for (int n = 0; n < cluster.size(); n++) {
        assertThat(cluster.node(n).directory().replica(rightId).map(RangeReplica::isFrozen).orElse(false))
            .as("right range frozen on n%d", n + 1).isFalse();
      }
      router.put("r", "3");
      router.put("b", "4");
      assertThat(router.get("q")).contains("2");
      assertThat(router.get("r")).contains("3");
      assertThat(router.get("a")).contains("1");
      assertThat(router.get("b")).contains("4");
      router.refresh();
      assertThat(router.ranges()).extracting(RangeDescriptorProto::getRangeId).containsExactly(leftId, rightId);
      RangeDescriptorProto leftAfter = mover.locate(leftId).orElseThrow().range();
      assertThat(leftAfter.getGeneration()).isEqualTo(leftBefore.getGeneration());
      assertThat(leftAfter.getEnd()).isEqualTo(leftBefore.getEnd());
    }
  }

  @ParameterizedTest(name = "on {0}")
  @EnumSource(EngineChoice.class)
  @SuppressWarnings("try") // the UsingEngine resource only scopes the engine choice
  @Timeout(240)
  void aReplicaDownDuringTheMerge_abortsIt_unfreezesTheRight_andTheRestartedNodeConverges(EngineChoice engine) throws Exception {
    try (UsingEngine on = UsingEngine.of(engine);
        LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      router.put("warmup", "1");
      router.split(Key.utf8(Writers.key(Writers.KEY_SPACE / 2)));
      List<RangeDescriptorProto> two = router.awaitRanges(2, Duration.ofSeconds(30));
      long leftId = two.get(0).getRangeId();
      long rightId = two.get(1).getRangeId();
      Await.until(Duration.ofSeconds(30), "both ranges ready on every node", () -> {
        for (int n = 0; n < cluster.size(); n++) {
          for (long id : List.of(leftId, rightId)) {
            if (cluster.node(n).directory().replica(id).flatMap(RangeReplica::descriptor).isEmpty()) {
              return false;
            }
          }
        }
        return true;
      });

      Writers writers = new Writers(cluster, 4);
      try (writers) {
        writers.start();
        writers.awaitAcks(200, Duration.ofSeconds(60));
        // Stop a node that leads neither range: the merge then runs on live leaders and waits for it.
        String leftLeader = mover.locate(leftId).orElseThrow().leaderNodeId();
        String rightLeader = mover.locate(rightId).orElseThrow().leaderNodeId();
        int down = List.of(0, 1, 2).stream()
            .filter(i -> !cluster.config(i).nodeId().equals(leftLeader) && !cluster.config(i).nodeId().equals(rightLeader))
            .findFirst().orElseThrow();
        cluster.stop(down);
        writers.awaitAcks(200, Duration.ofSeconds(60));
        RangeDescriptorProto leftBefore = mover.locate(leftId).orElseThrow().range();
        RangeDescriptorProto rightBefore = mover.locate(rightId).orElseThrow().range();

        long t0 = System.nanoTime();
        CompletableFuture<RangeDescriptorProto> merge = CompletableFuture.supplyAsync(() -> mover.merge(leftId, rightId));
        // The freeze commits through the live majority; the down node never applies it.
        Await.until(Duration.ofSeconds(30), "the right range to be frozen on a live node",
            () -> anyFrozen(cluster, rightId) || merge.isDone());
        assertThat(merge).as("merge finished before its freeze was seen").isNotDone();
        ExecutionException failed = Assertions.assertThrows(ExecutionException.class, () -> merge.get(60, TimeUnit.SECONDS));
        long abortMs = (System.nanoTime() - t0) / 1_000_000;
        log.info("merge aborted ms={}", abortMs);
        assertThat(failed.getCause()).isInstanceOf(StatusRuntimeException.class);
        RangeKvError error = RangeKvErrors.fromThrowable(failed.getCause()).orElseThrow();
        assertThat(error.hasUnavailable()).as("%s", error).isTrue();
        assertThat(error.getMessage()).contains("merge aborted");

        // Unfrozen on every live replica; writers to the right range flow again through the majority.
        Await.until(Duration.ofSeconds(30), "the right range to be unfrozen", () -> !anyFrozen(cluster, rightId));
        writers.awaitAcks(200, Duration.ofSeconds(60));
        router.put(Writers.key(Writers.KEY_SPACE - 1) + "~after-abort", "x");
        assertThat(router.get(Writers.key(Writers.KEY_SPACE - 1) + "~after-abort")).contains("x");

        RangeDescriptorProto leftAfter = mover.locate(leftId).orElseThrow().range();
        assertThat(leftAfter.getGeneration()).isEqualTo(leftBefore.getGeneration());
        assertThat(leftAfter.getStart()).isEqualTo(leftBefore.getStart());
        assertThat(leftAfter.getEnd()).isEqualTo(leftBefore.getEnd());
        assertThat(leftAfter.getEndInfinite()).isFalse();
        assertThat(mover.locate(rightId).orElseThrow().range()).isEqualTo(rightBefore);

        cluster.restart(down);
        writers.awaitAcks(200, Duration.ofSeconds(60));
      }
      // The restarted node replays freeze and unfreeze and ends unfrozen, with the same data.
      Await.until(Duration.ofSeconds(30), "the restarted node to apply the unfreeze",
          () -> !anyFrozen(cluster, rightId)
              && List.of(0, 1, 2).stream().allMatch(n -> cluster.node(n).directory().replica(rightId)
                  .flatMap(RangeReplica::descriptor).isPresent()));
      writers.verify(router, 2);
    }
  }

  private static boolean anyFrozen(LocalCluster cluster, long rangeId) {
    for (int n = 0; n < cluster.size(); n++) {
      if (cluster.isRunning(n)
          && cluster.node(n).directory().replica(rangeId).map(RangeReplica::isFrozen).orElse(false)) {
        return true;
      }
    }
    return false;
  }
}
