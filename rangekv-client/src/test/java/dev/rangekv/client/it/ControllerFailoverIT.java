package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controller integration test (in-JVM cluster, small thresholds): see {@link ControllerClusters}. */
class ControllerFailoverIT {
  @TempDir Path dir;

  @Test
  @Timeout(600)
  void aNewMetaLeaderCarriesOnAndTheMapHealsToWhatTheNodesHold() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), ControllerClusters.config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster)) {
      try (AckedWriters writers = ClientWriters.start(client, 8, ControllerClusters::uniformKey, 16 << 10, 800)) {
        meta.awaitOrDump("the controller splits", Duration.ofMinutes(2), () -> !meta.events("split").isEmpty());
        int leader = ControllerClusters.metaLeader(cluster);
        cluster.stop(leader);
        writers.join();
        assertThat(writers.ackedCount()).as("writes acknowledged through the meta leader's death").isGreaterThan(600);
        meta.awaitOrDump("the new meta leader keeps splitting", Duration.ofMinutes(3), () -> meta.ranges().size() >= 6);
        meta.awaitOrDump("the meta map equals the descriptors the range leaders hold", Duration.ofMinutes(2),
            () -> meta.ranges().stream().map(r -> r.getRange().getRangeId() + "@" + r.getRange().getGeneration())
                .collect(Collectors.toSet()).equals(ControllerClusters.leaderDescriptors(cluster)),
            () -> unheld(cluster, meta));
        writers.assertNoAckedWriteLost(client::batchGet);
      }
    }
  }

  /** Each node's Raft view of the ranges whose meta entry no range leader holds (for a failure message). */
  private static String unheld(LocalCluster cluster, MetaProbe meta) {
    java.util.Set<String> held = ControllerClusters.leaderDescriptors(cluster);
    StringBuilder sb = new StringBuilder("leaders hold: ").append(new java.util.TreeSet<>(held));
    meta.ranges().stream().filter(r -> !held.contains(r.getRange().getRangeId() + "@" + r.getRange().getGeneration()))
        .forEach(r -> sb.append('\n').append(RaftViews.describe(cluster, r.getRange().getRangeId())));
    return sb.toString();
  }
}
