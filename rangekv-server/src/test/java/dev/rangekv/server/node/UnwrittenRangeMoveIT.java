package dev.rangekv.server.node;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A node bootstraps a cluster alone; a second joins before anything is written and gets a replica. */
class UnwrittenRangeMoveIT {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void aNeverWrittenFirstRangeIsReplicatedToAJoiningNode() throws Exception {
    ControllerConfig controller = ControllerConfig.builder().tickMillis(500).deadNodeTimeoutMillis(5_000).build();
    NodeConfig c1 = NodeConfig.loopback("n1", dir.resolve("n1")).withTuning(RaftTuning.forTests());
    NodeConfig c2 = NodeConfig.loopback("n2", dir.resolve("n2")).withTuning(RaftTuning.forTests());
    c1 = c1.withMeta(MetaSettings.enabled(controller, List.of()));
    c2 = c2.withMeta(MetaSettings.enabled(controller, List.of(c1.clientAddress())));
    try (RangeKvNode n1 = RangeKvNode.start(c1)) {
      n1.bootstrapCluster(Duration.ofSeconds(30));
      try (RangeKvNode n2 = RangeKvNode.start(c2)) {
        n2.join(Duration.ofSeconds(30));
        ManagedChannel ch = ManagedChannelBuilder.forTarget(c2.clientAddress()).usePlaintext().build();
        try {
          Await.until(Duration.ofSeconds(60), "n2 holds a live replica of the first range", () -> {
            List<ReplicaStatus> held = KvServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
                .listRanges(ListRangesRequest.getDefaultInstance()).getReplicasList();
            return !held.isEmpty() && held.get(0).getRange().getReplicasCount() == 2
                && !held.get(0).getLeaderNodeId().isEmpty();
          });
        } finally {
          ch.shutdownNow();
        }
      }
    }
  }
}
