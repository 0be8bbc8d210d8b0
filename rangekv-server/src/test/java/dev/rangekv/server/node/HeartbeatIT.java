package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.MultiGetRequest;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WeightedKeyProto;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A 1-node cluster's heartbeat after writes and reads through the KV gRPC API. */
class HeartbeatIT {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void heartbeat_reportsTheLeadersLoad_size_sampledKeys_andAscendingWritesAsAppends() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster)) {
      RangeKvNode node = cluster.node(0);
      router.refresh();
      router.put("a/warmup", "1");
      node.heartbeat(); // ends the warm-up interval: the next one holds only what follows

      int n = 200;
      List<String> written = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String key = String.format("seq/%05d", i);
        router.put(key, "value-" + i);
        written.add(key);
      }
      for (int i = 0; i < 50; i++) {
        assertThat(router.get(written.get(i * 3))).contains("value-" + (i * 3));
      }
      List<ByteString> some = written.subList(10, 15).stream().map(ByteString::copyFromUtf8).toList();
      router.call(Key.utf8("seq/"), (a, d) -> router.kv(a).multiGet(
          MultiGetRequest.newBuilder().setHeader(ClusterRouter.header(d)).addAllKeys(some).build()));
      List<KeyValueProto> scanned = router.scan(Key.utf8("seq/"), Key.utf8("seq/").prefixEnd(), 40);
      assertThat(scanned).hasSize(40);

      HeartbeatRequest hb = node.heartbeat();

      assertThat(hb.getNode().getNodeId()).isEqualTo("n1");
      assertThat(hb.getNode().getAddress()).isEqualTo(cluster.config(0).clientAddress());
      assertThat(hb.getNode().getRaftAddress()).isEqualTo(cluster.config(0).raftAddress());
      assertThat(hb.getNode().getCapacityBytes()).isPositive();
      assertThat(hb.getNode().getReplicaCount()).isEqualTo(1);
      assertThat(hb.getNode().getLeaderCount()).isEqualTo(1);
      assertThat(hb.getIntervalMillis()).isPositive();
      assertThat(hb.getRangesList()).hasSize(1);
      RangeStatsProto r = hb.getRanges(0);
      assertThat(r.getRange().getRangeId()).isEqualTo(router.lookup(Key.utf8("seq/")).orElseThrow().getRangeId());
      assertThat(r.getLeader()).isTrue();
      assertThat(r.getLeaderNodeId()).isEqualTo("n1");
      assertThat(r.getBytes()).isPositive();
      assertThat(r.getKeys()).isPositive();
      assertThat(r.getWriteQps()).isPositive();
      assertThat(r.getReadQps()).isPositive();
      // keys touched: n puts; 50 gets + 5 multiGet keys + 40 scanned rows
      double seconds = hb.getIntervalMillis() / 1000.0;
      assertThat(r.getWriteQps() * seconds).isCloseTo(n, within(n * 0.05 + 2));
      assertThat(r.getReadQps() * seconds).isCloseTo(95, within(95 * 0.05 + 2));

      Set<ByteString> writtenKeys = new HashSet<>(written.stream().map(ByteString::copyFromUtf8).toList());
      assertThat(r.getSampledKeysList()).isNotEmpty().hasSizeLessThanOrEqualTo(128)
          .allSatisfy(k -> assertThat(writtenKeys).contains(k.getKey()));
      double sampled = r.getSampledKeysList().stream().mapToDouble(WeightedKeyProto::getWeight).sum();
      assertThat(sampled).isCloseTo(n + 95, within((n + 95) * 0.5));

      // every put landed above the range's greatest key at the interval's start ("a/warmup")
      assertThat(r.getTailWrites()).isGreaterThanOrEqualTo(n);
      assertThat(r.getTailAppends()).isEqualTo(r.getTailWrites());
      assertThat(r.getMaxWrittenKey().toStringUtf8()).isEqualTo(written.get(n - 1));

      // the next interval saw nothing: size stays, load and appends are gone
      HeartbeatRequest quiet = node.heartbeat();
      RangeStatsProto q = quiet.getRanges(0);
      assertThat(q.getLeader()).isTrue();
      assertThat(q.getBytes()).isPositive();
      assertThat(q.getReadQps()).isZero();
      assertThat(q.getWriteQps()).isZero();
      assertThat(q.getSampledKeysList()).isEmpty();
      assertThat(q.getTailWrites()).isZero();

      // writes inside the span (below its greatest key) are writes but not appends
      router.put("seq/00100", "again");
      router.put("b/early", "x");
      RangeStatsProto inside = node.heartbeat().getRanges(0);
      assertThat(inside.getTailWrites()).isEqualTo(2);
      assertThat(inside.getTailAppends()).isZero();
      assertThat(inside.getMaxWrittenKey().toStringUtf8()).isEqualTo("seq/00100");
    }
  }

  @Test
  @Timeout(120)
  void followers_reportTheDescriptorAndWhoLeads_only() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster)) {
      router.refresh();
      router.put("f/k", "v");
      // every node has heard from the leader once a follower's report names it
      Await.until(java.time.Duration.ofSeconds(30), "every node to know the leader", () -> {
        for (int i = 0; i < cluster.size(); i++) {
          if (cluster.node(i).heartbeats().build(System.nanoTime()).getRanges(0).getLeaderNodeId().isEmpty()) {
            return false;
          }
        }
        return true;
      });
      router.put("f/k2", "v");
      List<RangeStatsProto> reports = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        HeartbeatRequest hb = cluster.node(i).heartbeat();
        assertThat(hb.getNode().getNodeId()).isEqualTo(cluster.config(i).nodeId());
        assertThat(hb.getRangesList()).hasSize(1);
        reports.add(hb.getRanges(0));
      }
      List<RangeStatsProto> leaders = reports.stream().filter(RangeStatsProto::getLeader).toList();
      assertThat(leaders).hasSize(1);
      String leader = leaders.get(0).getLeaderNodeId();
      assertThat(leaders.get(0).getWriteQps()).isPositive();
      assertThat(reports).allSatisfy(r -> assertThat(r.getLeaderNodeId()).isEqualTo(leader));
      assertThat(reports.stream().filter(r -> !r.getLeader())).hasSize(2).allSatisfy(r -> {
        assertThat(r.getRange().getRangeId()).isEqualTo(leaders.get(0).getRange().getRangeId());
        assertThat(r.getBytes()).isZero();
        assertThat(r.getWriteQps()).isZero();
        assertThat(r.getSampledKeysList()).isEmpty();
        assertThat(r.getTailWrites()).isZero();
      });
    }
  }
}
