package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Killing a range's leader while writing: a new leader takes over, nothing acknowledged is lost. */
class LeaderFailoverIT {
  @TempDir Path dir;

  @Test
  @Timeout(180)
  void leaderStopped_whileWriting_newLeaderServes_andRestartedNodeCatchesUp() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster)) {
      router.refresh();
      router.put("warmup", "1");
      Writers writers = new Writers(cluster, 4);
      try (writers) {
        writers.start();
        writers.awaitAcks(100, Duration.ofSeconds(60));
        int leader = leaderIndex(cluster, router);
        assertThat(leader).isNotNegative();
        cluster.stop(leader);
        Await.until(Duration.ofSeconds(30), "a new leader", () -> {
          int now = leaderIndex(cluster, router);
          return now >= 0 && now != leader;
        });
        writers.awaitAcks(100, Duration.ofSeconds(60));
        cluster.restart(leader);
        writers.awaitAcks(100, Duration.ofSeconds(60));
      }
      writers.verify(router, 1);
    }
  }

  /** The index of the node leading range 1, or -1. */
  private static int leaderIndex(LocalCluster cluster, ClusterRouter router) {
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        continue;
      }
      for (ReplicaStatus s : router.kv(cluster.config(i).clientAddress())
          .listRanges(ListRangesRequest.getDefaultInstance()).getReplicasList()) {
        if (s.getRange().getRangeId() == 1 && s.getLeader()) {
          return i;
        }
      }
    }
    return -1;
  }
}
