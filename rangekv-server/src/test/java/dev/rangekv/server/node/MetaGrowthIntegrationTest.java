package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.policy.ControllerConfig;
import dev.rangekv.meta.state.MetaGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster bootstrapped on one node grows its meta range onto the next two that join; the meta range
 * then survives its first node's death (a new meta leader carries on) and a member's restart.
 */
class MetaGrowthIntegrationTest {
  @TempDir Path dir;

  @Test
  @Timeout(300)
  void theMetaRangeGrowsToThreeVotersAndOutlivesItsBootstrapNode() throws Exception {
    ControllerConfig controller = ControllerConfig.builder().tickMillis(500).deadNodeTimeoutMillis(5_000).build();
    List<NodeConfig> configs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      configs.add(NodeConfig.loopback("n" + i, dir.resolve("n" + i)).withTuning(RaftTuning.forTests()));
    }
    List<String> seeds = List.of(configs.get(0).clientAddress());
    configs.set(0, configs.get(0).withMeta(MetaSettings.enabled(controller, List.of())));
    for (int i = 1; i < 3; i++) {
      configs.set(i, configs.get(i).withMeta(MetaSettings.enabled(controller, seeds)));
    }
    RangeKvNode n1 = RangeKvNode.start(configs.get(0));
    RangeKvNode n2 = null;
    RangeKvNode n3 = null;
    try {
      n1.bootstrapCluster(Duration.ofSeconds(30));
      assertThat(n1.metaNode().group().orElseThrow().voterIds()).containsExactly("n1");
      n2 = RangeKvNode.start(configs.get(1));
      n2.join(Duration.ofSeconds(30));
      n3 = RangeKvNode.start(configs.get(2));
      n3.join(Duration.ofSeconds(30));

      RangeKvNode[] nodes = {n1, n2, n3};
      Await.until(Duration.ofSeconds(90), "three meta voters, each hosting a replica that knows the 3 nodes", () -> {
        for (RangeKvNode n : nodes) {
          Optional<MetaGroup> g = n.metaNode().group();
          if (g.isEmpty() || !g.get().voterIds().equals(List.of("n1", "n2", "n3")) || g.get().view().nodes().size() != 3) {
            return false;
          }
        }
        return true;
      });
      assertThat(n1.metaNode().group().orElseThrow().view().events(0, 0, 0))
          .anySatisfy(e -> assertThat(e.getKind()).isEqualTo("meta-voters"));

      n1.close();
      RangeKvNode a = n2;
      RangeKvNode b = n3;
      Await.until(Duration.ofSeconds(60), "a new meta leader on n2 or n3",
          () -> isLeader(a) || isLeader(b));
      // The surviving meta range still takes writes: the new leader records n1's death.
      Await.until(Duration.ofSeconds(60), "the new meta leader logs n1 as dead", () ->
          (isLeader(a) ? a : b).metaNode().group().orElseThrow().view().events(0, 0, 0).stream()
              .anyMatch(e -> e.getKind().equals("node-dead") && e.getDetail().contains("n1")));

      // A member restarts and reopens its meta replica with its peers.
      RangeKvNode follower = isLeader(a) ? b : a;
      int index = follower == a ? 1 : 2;
      follower.close();
      RangeKvNode restarted = RangeKvNode.start(configs.get(index));
      if (index == 1) {
        n2 = restarted;
      } else {
        n3 = restarted;
      }
      Await.until(Duration.ofSeconds(60), "the restarted member hosts the meta replica and sees a leader",
          () -> restarted.metaNode().group().flatMap(MetaGroup::leaderNodeId).isPresent()
              && restarted.metaNode().group().get().view().nodes().size() == 3);
    } finally {
      n1.close();
      if (n2 != null) {
        n2.close();
      }
      if (n3 != null) {
        n3.close();
      }
    }
  }

  private static boolean isLeader(RangeKvNode n) {
    return n.metaNode().group().map(MetaGroup::isLeader).orElse(false);
  }
}
