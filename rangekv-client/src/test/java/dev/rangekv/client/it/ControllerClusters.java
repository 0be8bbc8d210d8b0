package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.ControllerConfigBuilder;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.testcluster.NodeListings;
import dev.rangekv.testcluster.NodeStubs;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Shared set-up of the controller integration tests: in-JVM clusters whose meta leader runs the
 * controller with small thresholds (1 MiB ranges, 1 s ticks). Each test is its own class with its own
 * cluster. The writers' values repeat one byte, so they
 * compress ~20x on disk: range sizes must be logical bytes (a flushed range once looked tiny and
 * everything merged back).
 */
final class ControllerClusters {
  private ControllerClusters() {}


  static ControllerConfig config() {
    return builder().build();
  }

  /** The settings of {@link #config()}, to change one or two. */
  static ControllerConfigBuilder builder() {
    return ControllerConfig.builder()
        .maxBytes(1 << 20)
        .splitQps(150)
        .loadSplitIntervals(3)
        .splitCooldownMillis(5_000)
        .tickMillis(1_000)
        .deadNodeTimeoutMillis(6_000)
        .hotspotWindow(5);
  }

  static RangeKvClient client(LocalCluster cluster) {
    List<String> seeds = new java.util.ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seeds.add(cluster.config(i).clientAddress());
    }
    RangeKvClient c = RangeKvClient.connect(seeds, ScanUnderChurnIT.options());
    TestCluster.awaitServing(c);
    return c;
  }

  /** Write n's key, uniform over "user" + 16 hex digits (SplitMix64 of n; java.util.Random's first
   * output for consecutive seeds is nearly sequential, which made these keys monotonic). */
  static Key uniformKey(long n) {
    return Key.utf8(String.format("user%016x", new java.util.SplittableRandom(n).nextLong()));
  }

  static int metaLeader(LocalCluster cluster) {
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.isRunning(i) && cluster.node(i).metaNode().group().map(g -> g.isLeader()).orElse(false)) {
        return i;
      }
    }
    throw new AssertionError("no meta leader");
  }

  /** "id@generation" of every range as its leader holds it, by the running nodes' own accounts. */
  static Set<String> leaderDescriptors(LocalCluster cluster) {
    Set<String> out = new java.util.HashSet<>();
    try (NodeStubs stubs = new NodeStubs()) {
      NodeListings listings = new NodeListings(stubs, () -> {
        List<String> running = new java.util.ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
          if (cluster.isRunning(i)) {
            running.add(cluster.config(i).clientAddress());
          }
        }
        return running;
      });
      for (List<ReplicaStatus> replicas : listings.replicasByNode().values()) {
        replicas.stream().filter(ReplicaStatus::getLeader)
            .forEach(r -> out.add(r.getRange().getRangeId() + "@" + r.getRange().getGeneration()));
      }
    }
    return out;
  }

  static Set<String> replicaIds(RangeStatsProto r) {
    return r.getRange().getReplicasList().stream().map(ReplicaProto::getNodeId).collect(Collectors.toSet());
  }
}
