package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testcluster.ScanChecker;
import dev.rangekv.testkit.Await;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Replica moves on in-JVM clusters: under load, aborted by a dying target, and seen by stale clients. */
class MoveIT {
  private static final Logger log = LoggerFactory.getLogger(MoveIT.class);

  @TempDir Path dir;

  static List<String> seeds(LocalCluster cluster) {
    List<String> seeds = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seeds.add(cluster.config(i).clientAddress());
    }
    return seeds;
  }

  @Test
  @Timeout(240)
  void movingEveryReplica_from123_to345_underWritesAndScans_losesNothing() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(5, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(90))) {
      router.refresh();
      ScanChecker scanner = new ScanChecker(ClusterSteps.router(cluster));
      Writers writers = new Writers(cluster, 4);
      RangeDescriptorProto before = mover.locate(1).orElseThrow().range();
      RangeDescriptorProto after;
      try (scanner; writers) {
        scanner.start(router);
        writers.start();
        writers.awaitAcks(300, Duration.ofSeconds(60));
        // n1 leads the root at bootstrap more often than not; move it first so leadership moves too.
        mover.move(1, "n1", cluster.config(3).clientAddress(), 0);
        writers.awaitAcks(100, Duration.ofSeconds(60));
        after = mover.move(1, "n2", cluster.config(4).clientAddress(), 0);
        writers.awaitAcks(100, Duration.ofSeconds(60));
      }
      log.info("moves done acked={} scans={} writerRetries={}", writers.acks(), scanner.scans(),
          writers.retries());
      assertThat(scanner.violations()).isEmpty();
      assertThat(scanner.scans()).isPositive();
      assertThat(after.getReplicasList()).extracting(ReplicaProto::getNodeId).containsExactlyInAnyOrder("n3", "n4", "n5");
      // each move swaps its two replicas in one configuration change, recorded once (never 4 voters)
      assertThat(after.getGeneration()).isEqualTo(before.getGeneration() + 2);

      Map<String, String> read = new HashMap<>();
      for (KeyValueProto kv : router.scan(Key.EMPTY, RangeEnd.INFINITY, 0)) {
        read.put(kv.getKey().toStringUtf8(), kv.getValue().toStringUtf8());
      }
      for (Map.Entry<String, String> e : writers.acked().entrySet()) {
        assertThat(read.get(e.getKey())).as("last acknowledged value of %s", e.getKey()).isEqualTo(e.getValue());
      }
      awaitSameStores(cluster, List.of(2, 3, 4));
      for (int gone : List.of(0, 1)) {
        assertThat(cluster.node(gone).store().scan(Key.EMPTY, RangeEnd.INFINITY, 1, false))
            .as("data left on n%d", gone + 1).isEmpty();
        assertThat(cluster.node(gone).store().rangeState(1)).isEmpty();
        assertThat(cluster.node(gone).consensus().openRanges()).doesNotContain(1L);
      }
    }
  }

  @ParameterizedTest(name = "on {0}")
  @EnumSource(EngineChoice.class)
  @SuppressWarnings("try") // the UsingEngine resource only scopes the engine choice
  @Timeout(180)
  void killingTheTargetMidMove_abortsTheMove_andTheRangeKeepsServing(EngineChoice engine) throws Exception {
    try (UsingEngine on = UsingEngine.of(engine);
        LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      // Random (incompressible) values: ~2.4 MiB that the store cannot shrink.
      java.util.Random random = new java.util.Random(42);
      Map<String, String> values = new HashMap<>();
      for (int i = 0; i < 600; i++) {
        StringBuilder v = new StringBuilder();
        random.ints(4096, 33, 127).forEach(c -> v.append((char) c));
        values.put(Writers.key(i), v.toString());
        router.put(Writers.key(i), v.toString());
      }
      RangeDescriptorProto before = mover.locate(1).orElseThrow().range();
      // ~2.4 MiB at 256 KiB/s: the snapshot transfer takes about 10 s, so the kill lands mid-transfer.
      CompletableFuture<RangeDescriptorProto> add = CompletableFuture.supplyAsync(
          () -> mover.addReplica(1, cluster.config(3).clientAddress(), 256 << 10));
      Path staging = cluster.config(3).dataDir().resolve("transfers");
      Await.until(Duration.ofSeconds(30), "the target to receive span files", () -> receivedBytes(staging) > 64 << 10);
      cluster.stop(3);
      assertThatThrownBy(() -> add.get(60, TimeUnit.SECONDS))
          .hasCauseInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("aborted");

      RangeDescriptorProto now = mover.locate(1).orElseThrow().range();
      assertThat(now.getGeneration()).isEqualTo(before.getGeneration());
      assertThat(now.getReplicasList()).extracting(ReplicaProto::getNodeId).containsExactlyInAnyOrder("n1", "n2", "n3");
      router.put("after-abort", "1");
      assertThat(router.get("after-abort")).contains("1");
      assertThat(router.get(Writers.key(7))).contains(values.get(Writers.key(7)));
    }
  }

  @Test
  @Timeout(180)
  void aClientWithADescriptorFromBeforeAMove_getsRangeMoved_andSucceedsOnRetry() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      router.put("stale/a", "1");
      NodeAdminClient.Located old = mover.locate(1).orElseThrow();
      mover.move(1, old.leaderNodeId(), cluster.config(3).clientAddress(), 0);

      // The old leader gave the range up: it names the current descriptor.
      StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> router.kv(old.leaderAddress()).get(GetRequest.newBuilder().setHeader(ClusterRouter.header(old.range()))
              .setKey(ByteString.copyFromUtf8("stale/a")).build()));
      RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
      assertThat(error.hasRangeMoved()).as("%s", error).isTrue();
      RangeDescriptorProto current = error.getRangeMoved().getCurrent(0);
      assertThat(current.getGeneration()).isGreaterThan(old.range().getGeneration());
      assertThat(current.getReplicasList()).extracting(ReplicaProto::getNodeId).doesNotContain(old.leaderNodeId());

      // A replica that still holds the range refuses the old generation with the current descriptor.
      String holder = current.getReplicas(0).getAddress();
      StatusRuntimeException stale = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> router.kv(mover.locate(1).orElseThrow().leaderAddress()).put(PutRequest.newBuilder()
              .setHeader(ClusterRouter.header(old.range())).setWriteId(router.nextWriteId())
              .setKey(ByteString.copyFromUtf8("stale/b")).setValue(ByteString.copyFromUtf8("2")).build()));
      assertThat(RangeKvErrors.fromThrowable(stale).orElseThrow().getRangeMoved().getCurrent(0).getGeneration())
          .isEqualTo(current.getGeneration());
      assertThat(holder).isNotEmpty();

      // Retrying with what the error said succeeds.
      GetResponse r = router.kv(mover.locate(1).orElseThrow().leaderAddress()).get(GetRequest.newBuilder()
          .setHeader(ClusterRouter.header(current)).setKey(ByteString.copyFromUtf8("stale/a")).build());
      assertThat(r.getValue().toStringUtf8()).isEqualTo("1");
      router.put("stale/b", "2");
      assertThat(router.get("stale/b")).contains("2");
    }
  }

  /** Bytes of span files staged under {@code dir} so far (0 before the fetch starts). */
  static long receivedBytes(Path dir) {
    if (!java.nio.file.Files.isDirectory(dir)) {
      return 0;
    }
    try (var files = java.nio.file.Files.walk(dir)) {
      return files.filter(java.nio.file.Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return 0; // files come and go while we look
    }
  }

  static void awaitSameStores(LocalCluster cluster, List<Integer> nodes) {
    ClusterSteps.awaitSameStores(cluster, "replica stores " + nodes + " to converge", Duration.ofSeconds(30), () -> nodes);
  }
}
