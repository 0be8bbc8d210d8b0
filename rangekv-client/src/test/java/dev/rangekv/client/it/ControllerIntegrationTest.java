package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.policy.ControllerConfig;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster running itself: in-JVM clusters whose meta leader runs the controller with small
 * thresholds (1 MiB ranges, 1 s ticks). Loading data splits and spreads it, deleting it merges it back,
 * a read-hot range is split by load and one half moves, monotonic inserts raise the alert, a dead
 * node's replicas are re-created elsewhere — and no acknowledged write is lost on the way.
 */
class ControllerIntegrationTest {
  @TempDir Path dir;

  static ControllerConfig config() {
    return ControllerConfig.builder()
        .maxBytes(1 << 20)
        .splitQps(150)
        .loadSplitIntervals(3)
        .splitCooldownMillis(5_000)
        .tickMillis(1_000)
        .deadNodeTimeoutMillis(6_000)
        .hotspotWindow(5)
        .build();
  }

  static RangeKvClient client(LocalCluster cluster) {
    List<String> seeds = new java.util.ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seeds.add(cluster.config(i).clientAddress());
    }
    RangeKvClient c = RangeKvClient.connect(seeds, ScanUnderChurnIntegrationTest.options());
    TestCluster.awaitServing(c);
    return c;
  }

  /** Write n's key, uniform over "user" + 16 hex digits (SplitMix64 of n; java.util.Random's first
   * output for consecutive seeds is nearly sequential, which made these keys monotonic). */
  static Key uniformKey(long n) {
    return Key.utf8(String.format("user%016x", new java.util.SplittableRandom(n).nextLong()));
  }

  @Test
  @Timeout(600)
  void loadingSplitsAndSpreadsTheDataAndDeletingItMergesItBack() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests(), config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = client(cluster)) {
      AckedWriters writers = new AckedWriters(client, 8, ControllerIntegrationTest::uniformKey, 16 << 10, 1280);
      writers.join();
      assertThat(writers.ackedBytes()).as("acknowledged bytes").isGreaterThan(18L << 20);

      meta.awaitOrDump("the 20 MiB are split into at least 8 ranges", Duration.ofMinutes(3),
          () -> meta.ranges().size() >= 8);
      meta.awaitOrDump("every node leads some ranges, within tolerance", Duration.ofMinutes(3), () -> {
        Map<String, Integer> leaders = meta.leaderCounts();
        int total = leaders.values().stream().mapToInt(Integer::intValue).sum();
        int min = leaders.values().stream().mapToInt(Integer::intValue).min().orElse(0);
        int max = leaders.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        return leaders.size() == 3 && max - min <= Math.max(2, total / 5);
      });
      assertThat(meta.events("split")).isNotEmpty();
      assertThat(meta.events("alert-monotonic")).as("uniform keys are no monotonic hotspot").isEmpty();
      writers.assertNoAckedWriteLost();

      int before = meta.ranges().size();
      client.deleteRange(Key.EMPTY, RangeEnd.INFINITY);
      meta.awaitOrDump("the emptied ranges merge back down", Duration.ofMinutes(4),
          () -> meta.ranges().size() <= Math.max(2, before / 4));
      assertThat(meta.events("merge")).isNotEmpty();
      assertThat(client.scan(Key.EMPTY, RangeEnd.INFINITY).hasNext()).isFalse();
    }
  }

  @Test
  @Timeout(600)
  void aReadHotRangeIsSplitByLoadAndOneHalfMoves() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = client(cluster)) {
      AckedWriters writers = new AckedWriters(client, 4, n -> Key.utf8(String.format("item%05d", n)), 100, 2_000);
      writers.join();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      List<Thread> readers = new java.util.ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Random random = new Random(t);
        Thread th = new Thread(() -> {
          while (!stop.get()) {
            client.get(Key.utf8(String.format("item%05d", random.nextInt(2_000))));
            reads.incrementAndGet();
          }
        }, "hot-reader-" + t);
        th.setDaemon(true);
        readers.add(th);
        th.start();
      }
      try {
        meta.awaitOrDump("a load split", Duration.ofMinutes(3), () -> meta.events("split").stream()
            .anyMatch(e -> e.getReason().contains("load")));
        EventProto split = meta.events("split").stream().filter(e -> e.getReason().contains("load")).findFirst().orElseThrow();
        Set<Long> halves = Set.copyOf(split.getRangeIdsList());
        meta.awaitOrDump("one half of the load split moves", Duration.ofMinutes(3), () -> meta.events("move").stream()
            .filter(e -> e.getSeq() > split.getSeq())
            .anyMatch(e -> e.getRangeIdsList().stream().anyMatch(halves::contains)));
      } finally {
        stop.set(true);
        for (Thread th : readers) {
          th.join();
        }
      }
      assertThat(reads.get()).isPositive();
      writers.assertNoAckedWriteLost();
    }
  }

  @Test
  @Timeout(600)
  void monotonicInsertsRaiseTheMonotonicKeyAlert() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests(), config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = client(cluster)) {
      long t0 = 1_700_000_000_000L;
      try (AckedWriters writers = new AckedWriters(client, 8,
          n -> KeyCodec.tuple().addLong(t0 + n).addString("order").build(), 2_000, Long.MAX_VALUE)) {
        meta.awaitOrDump("the monotonic-key alert", Duration.ofMinutes(3),
            () -> !meta.events("alert-monotonic").isEmpty());
      }
      EventProto alert = meta.events("alert-monotonic").get(0);
      assertThat(alert.getDetail() + " " + alert.getReason()).containsIgnoringCase("bucket");
    }
  }

  @Test
  @Timeout(600)
  void aDeadNodesReplicasAreRecreatedOnTheLiveNodes() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = client(cluster)) {
      AckedWriters writers = new AckedWriters(client, 8, ControllerIntegrationTest::uniformKey, 16 << 10, 400);
      writers.join();
      meta.awaitOrDump("the 4th node holds replicas", Duration.ofMinutes(3), () -> meta.ranges().size() >= 3
          && meta.ranges().stream().anyMatch(r -> replicaIds(r).contains("n4")));
      cluster.stop(3);
      try {
        meta.awaitOrDump("every range is back to 3 replicas on live nodes", Duration.ofMinutes(2), () -> {
          List<RangeStatsProto> ranges = meta.ranges();
          return ranges.stream().allMatch(r -> replicaIds(r).size() == 3 && !replicaIds(r).contains("n4"));
        });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; ranges: " + meta.ranges().stream()
            .map(r -> r.getRange().getRangeId() + "@" + r.getRange().getGeneration() + replicaIds(r)).toList()
            + "; events: " + meta.events().stream().map(ev -> ev.getKind() + " " + ev.getRangeIdsList() + " " + ev.getReason()).toList(), e);
      }
      assertThat(meta.events("repair")).isNotEmpty();
      writers.assertNoAckedWriteLost();
    }
  }

  @Test
  @Timeout(600)
  void aNewMetaLeaderCarriesOnAndTheMapHealsToWhatTheNodesHold() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = client(cluster)) {
      try (AckedWriters writers = new AckedWriters(client, 8, ControllerIntegrationTest::uniformKey, 16 << 10, 800)) {
        meta.awaitOrDump("the controller splits", Duration.ofMinutes(2), () -> !meta.events("split").isEmpty());
        int leader = metaLeader(cluster);
        cluster.stop(leader);
        writers.join();
        assertThat(writers.ackedCount()).as("writes acknowledged through the meta leader's death").isGreaterThan(600);
        meta.awaitOrDump("the new meta leader keeps splitting", Duration.ofMinutes(3), () -> meta.ranges().size() >= 6);
        meta.awaitOrDump("the meta map equals the descriptors the range leaders hold", Duration.ofMinutes(2),
            () -> meta.ranges().stream().map(r -> r.getRange().getRangeId() + "@" + r.getRange().getGeneration())
                .collect(Collectors.toSet()).equals(leaderDescriptors(cluster)));
        writers.assertNoAckedWriteLost();
      }
    }
  }

  static int metaLeader(LocalCluster cluster) {
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.isRunning(i) && cluster.node(i).metaNode().group().map(g -> g.isLeader()).orElse(false)) {
        return i;
      }
    }
    throw new AssertionError("no meta leader");
  }

  /** "id@generation" of every range as its leader holds it. */
  static Set<String> leaderDescriptors(LocalCluster cluster) {
    Set<String> out = new java.util.HashSet<>();
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        continue;
      }
      io.grpc.ManagedChannel ch = io.grpc.ManagedChannelBuilder.forTarget(cluster.config(i).clientAddress())
          .usePlaintext().build();
      try {
        for (var r : dev.rangekv.proto.NodeAdminServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, java.util.concurrent.TimeUnit.SECONDS)
            .listRanges(dev.rangekv.proto.ListRangesRequest.getDefaultInstance()).getReplicasList()) {
          if (r.getLeader()) {
            out.add(r.getRange().getRangeId() + "@" + r.getRange().getGeneration());
          }
        }
      } finally {
        ch.shutdownNow();
      }
    }
    return out;
  }

  static Set<String> replicaIds(RangeStatsProto r) {
    return r.getRange().getReplicasList().stream().map(ReplicaProto::getNodeId).collect(Collectors.toSet());
  }
}
