package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A split child that never applied a write of its own (applied index 0), and whose leadership moved,
 * still takes a new replica: its span snapshot carries the term of its log's first entry, not the
 * placeholder term 0 (a new replica installed at term 0 never matched the leader's log, whose next entry
 * came from a later term, so repairs of cold ranges timed out).
 */
class ColdChildMoveIT {
  @TempDir Path dir;

  @Test
  @Timeout(180)
  void aNeverWrittenSplitChildMovesToAFourthNode() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = new NodeAdminClient(MoveIT.seeds(cluster), Duration.ofSeconds(60))) {
      router.refresh();
      for (int i = 0; i < 20; i++) {
        router.put("k" + (char) ('a' + i), "v" + i);
      }
      SplitRangeResponse split = mover.split(1, ByteString.copyFromUtf8("kk"), cluster.splitChildId());
      long child = split.getRight().getRangeId();
      // A new leader's term starts with a configuration entry after entry 0: the shape a cold range has
      // once the controller moved its leadership (the repair scenario that hung).
      String leader = Await.value(Duration.ofSeconds(30), "the child's first leader", () -> mover.locate(child))
          .leaderNodeId();
      String heir = split.getRight().getReplicasList().stream().map(ReplicaProto::getNodeId)
          .filter(n -> !n.equals(leader)).findFirst().orElseThrow();
      mover.transferLeader(child, heir);
      String from = leader;
      String to = "n4";

      RangeDescriptorProto moved = mover.move(child, from, cluster.config(3).clientAddress(), 0);

      assertThat(moved.getReplicasList()).extracting(ReplicaProto::getNodeId).contains(to).doesNotContain(from);
      router.refresh();
      for (int i = 10; i < 20; i++) {
        assertThat(router.get("k" + (char) ('a' + i))).as("key k%s", (char) ('a' + i)).isEqualTo(Optional.of("v" + i));
      }
    }
  }
}
