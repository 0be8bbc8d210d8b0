package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controller integration test (in-JVM cluster, small thresholds): see {@link ControllerClusters}. */
class ControllerSplitMergeIT {
  @TempDir Path dir;

  @Test
  @Timeout(600)
  void loadingSplitsAndSpreadsTheDataAndDeletingItMergesItBack() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests(), ControllerClusters.config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster)) {
      AckedWriters writers = ClientWriters.start(client, 8, ControllerClusters::uniformKey, 16 << 10, 1280);
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
      writers.assertNoAckedWriteLost(client::batchGet);

      int before = meta.ranges().size();
      client.deleteRange(Key.EMPTY, RangeEnd.INFINITY);
      meta.awaitOrDump("the emptied ranges merge back down", Duration.ofMinutes(4),
          () -> meta.ranges().size() <= Math.max(2, before / 4));
      assertThat(meta.events("merge")).isNotEmpty();
      assertThat(client.scan(Key.EMPTY, RangeEnd.INFINITY).hasNext()).isFalse();
    }
  }
}
