package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster bootstrapped on one node grows its meta range onto the next nodes that join; when the first
 * node dies a new meta leader carries on and a live node replaces its voter; the first node, restarted,
 * drops its stale meta replica and heartbeats to the new leader; a voter restarts into its replica.
 */
class MetaGrowthIT {
  @TempDir Path dir;
  private final RangeKvNode[] nodes = new RangeKvNode[4];
  private final List<NodeConfig> configs = new ArrayList<>();

  @Test
  @Timeout(300)
  void theMetaRangeGrowsToThreeVoters_replacesADeadOne_andTheDeadOneStepsAsideOnReturn() throws Exception {
    ControllerConfig controller = ControllerConfig.builder().tickMillis(500).deadNodeTimeoutMillis(5_000).build();
    for (int i = 1; i <= 4; i++) {
      configs.add(NodeConfig.loopback("n" + i, dir.resolve("n" + i)).withTuning(RaftTuning.forTests()));
    }
    List<String> seeds = List.of(configs.get(0).clientAddress());
    configs.set(0, configs.get(0).withMeta(MetaSettings.enabled(controller, List.of())));
    for (int i = 1; i < 4; i++) {
      configs.set(i, configs.get(i).withMeta(MetaSettings.enabled(controller, seeds)));
    }
    try {
      nodes[0] = RangeKvNode.start(configs.get(0));
      nodes[0].bootstrapCluster(Duration.ofSeconds(30));
      assertThat(group(0).orElseThrow().voterIds()).containsExactly("n1");
      for (int i = 1; i < 4; i++) {
        nodes[i] = RangeKvNode.start(configs.get(i));
        nodes[i].join(Duration.ofSeconds(30));
      }
      awaitVoters(List.of("n1", "n2", "n3"), "three meta voters, each hosting a replica that knows the 4 nodes");
      // A replica's configuration lists the new voters as soon as the change is appended; only the event
      // says it committed. Stopping n1 before that leaves n2 and n3 in the joint configuration with the
      // old voters [n1, n2], which cannot elect without n1. And every voter must have applied the event
      // from its log: n3 starts from the leader's state with an empty Raft log, and Ratis discards the vote
      // of a replica with an empty log (docs/architecture.md, dormant ranges, step 4), so stopping n1 while
      // the committed event had reached n2 only left n2 without a majority.
      Await.until(Duration.ofSeconds(30), "the growth's meta-voters event, applied by every voter", () ->
          IntStream.range(0, 3).allMatch(i -> group(i).map(g -> g.view().events(0, 0, 0).stream()
              .anyMatch(e -> e.kind().equals("meta-voters")
                  && List.of("n1", "n2", "n3").stream().allMatch(id -> e.detail().replaceAll(".*->", "").contains(id))))
              .orElse(false)));
      assertThat(group(3)).as("n4 hosts no meta replica").isEmpty();

      nodes[0].close();
      awaitVoters(List.of("n2", "n3", "n4"), "n1's voter replaced by n4 under a new meta leader");
      Await.until(Duration.ofSeconds(30), "the replacement's meta-voters event", () -> leaderGroup().view()
          .events(0, 0, 0).stream().anyMatch(e -> e.kind().equals("meta-voters")
              && e.reason().equals("meta voter on a dead node") && e.detail().endsWith("[n4, n2, n3]")));

      long restartedAt = System.currentTimeMillis();
      nodes[0] = RangeKvNode.start(configs.get(0));
      Await.until(Duration.ofSeconds(60), "restarted n1 drops its stale meta replica and heartbeats to the new leader",
          () -> group(0).isEmpty() && leaderGroup().view().nodes().stream()
              .anyMatch(n -> n.nodeId().equals("n1") && n.lastHeartbeatMillis() >= restartedAt));

      int voter = leaderGroup() == group(1).orElse(null) ? 2 : 1;
      nodes[voter].close();
      nodes[voter] = RangeKvNode.start(configs.get(voter));
      int v = voter;
      Await.until(Duration.ofSeconds(60), "a restarted voter hosts its meta replica and sees a leader",
          () -> group(v).flatMap(MetaGroup::leaderNodeId).isPresent() && group(v).get().view().nodes().size() == 4);
    } finally {
      for (RangeKvNode n : nodes) {
        if (n != null) {
          n.close();
        }
      }
    }
  }

  private Optional<MetaGroup> group(int i) {
    return nodes[i] == null ? Optional.empty() : nodes[i].metaNode().group();
  }

  private MetaGroup leaderGroup() {
    return Await.value(Duration.ofSeconds(60), "a meta leader", () -> {
      for (int i = 0; i < nodes.length; i++) {
        Optional<MetaGroup> g = group(i);
        if (g.isPresent() && g.get().isLeader()) {
          return g;
        }
      }
      return Optional.empty();
    });
  }

  private void awaitVoters(List<String> voters, String what) {
    Await.until(Duration.ofSeconds(90), what, () -> {
      for (String id : voters) {
        Optional<MetaGroup> g = group(Integer.parseInt(id.substring(1)) - 1);
        if (g.isEmpty() || !g.get().voterIds().equals(voters) || g.get().view().nodes().size() != 4) {
          return false;
        }
      }
      return true;
    });
  }

}
