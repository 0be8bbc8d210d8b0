package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.AckedWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Controller integration test (in-JVM cluster, small thresholds): see {@link ControllerClusters}. */
class ControllerRepairIT {
  @TempDir Path dir;

  @Test
  @Timeout(600)
  void aDeadNodesReplicasAreRecreatedOnTheLiveNodes() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), ControllerClusters.config());
        MetaProbe meta = new MetaProbe(cluster);
        RangeKvClient client = ControllerClusters.client(cluster)) {
      AckedWriters writers = ClientWriters.start(client, 8, ControllerClusters::uniformKey, 16 << 10, 400);
      writers.join();
      meta.awaitOrDump("the 4th node holds replicas", Duration.ofMinutes(3), () -> meta.ranges().size() >= 3
          && meta.ranges().stream().anyMatch(r -> ControllerClusters.replicaIds(r).contains("n4")));
      long lastSeqBeforeStop = meta.events().stream().mapToLong(EventProto::getSeq).max().orElse(0);
      cluster.stop(3);
      try {
        meta.awaitOrDump("every range is back to 3 replicas on live nodes", Duration.ofMinutes(2), () -> {
          List<RangeStatsProto> ranges = meta.ranges();
          return ranges.stream().allMatch(r -> ControllerClusters.replicaIds(r).size() == 3 && !ControllerClusters.replicaIds(r).contains("n4"));
        });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; ranges: " + meta.ranges().stream()
            .map(r -> r.getRange().getRangeId() + "@" + r.getRange().getGeneration() + ControllerClusters.replicaIds(r)).toList()
            + "; events: " + meta.events().stream().map(ev -> ev.getKind() + " " + ev.getRangeIdsList() + " " + ev.getReason()).toList(), e);
      }
      // A replica of the dead node leaves by a repair, or by a move when a balancing move of that replica was
      // already under way when it died: either way the controller explains it with an event after the stop.
      assertThat(meta.events().stream()
          .filter(e -> e.getSeq() > lastSeqBeforeStop)
          .filter(e -> e.getKind().equals("repair") || e.getKind().equals("move")))
          .as("repair or move events after the stop").isNotEmpty();
      writers.assertNoAckedWriteLost(client::batchGet);
    }
  }
}
