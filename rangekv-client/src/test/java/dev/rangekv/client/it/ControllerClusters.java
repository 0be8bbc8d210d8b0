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
 * Shared set-up of the controller integration tests: in-JVM clusters whose meta leader runs the
 * controller with small thresholds (1 MiB ranges, 1 s ticks). Each test is its own class so that
 * Surefire runs it in a fresh JVM (see the module's pom): a second controller cluster in one JVM saw
 * range sizes collapse and merged everything back (not understood yet; see the closing note of issue 6).
 */
final class ControllerClusters {
  private ControllerClusters() {}


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

  static Set<String> replicaIds(RangeStatsProto r) {
    return r.getRange().getReplicasList().stream().map(ReplicaProto::getNodeId).collect(Collectors.toSet());
  }
}
