package dev.rangekv.core.split;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static dev.rangekv.core.cluster.ClusterFixtures.node;
import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PreSplitPlannerTest {

  @Test
  void uniformPlan_tilesTheKeyspaceAndSpreadsReplicasAndLeaders() {
    PreSplitPlan plan = PreSplitPlanner.uniform(16, nodes(0, "n1", "n2", "n3", "n4"), 3);
    assertThat(plan.splitPoints()).isEqualTo(KeyCodec.uniformSplitPoints(16));
    List<RangeDescriptor> ds = plan.descriptors(100);
    assertThat(RangeMap.of(ds).size()).isEqualTo(16);
    Map<String, Integer> replicas = new HashMap<>();
    Map<String, Integer> leaders = new HashMap<>();
    for (RangeDescriptor d : ds) {
      assertThat(new HashSet<>(d.replicas())).hasSize(3);
      d.replicas().forEach(n -> replicas.merge(n, 1, Integer::sum));
      leaders.merge(d.replicas().get(0), 1, Integer::sum);
    }
    assertThat(replicas.values()).containsOnly(12);
    assertThat(leaders.values()).containsOnly(4);
  }

  @Test
  void zones_areDistinctWithinEachRange() {
    List<NodeStats> ns = List.of(node("a1", "a", 0), node("a2", "a", 0), node("b1", "b", 0), node("b2", "b", 0),
        node("c1", "c", 0), node("c2", "c", 0));
    Map<String, String> zone = new HashMap<>();
    ns.forEach(n -> zone.put(n.nodeId(), n.zone()));
    PreSplitPlan plan = PreSplitPlanner.uniform(12, ns, 3);
    for (List<String> p : plan.placements()) {
      assertThat(p.stream().map(zone::get).distinct()).hasSize(3);
    }
  }

  @Test
  void givenKeys_areSortedDeduplicatedAndFewerNodesThanReplicasIsCapped() {
    PreSplitPlan plan = PreSplitPlanner.atKeys(List.of(k(30), k(10), k(30), Key.EMPTY, k(20)), nodes(0, "n1", "n2"), 3);
    assertThat(plan.splitPoints()).containsExactly(k(10), k(20), k(30));
    assertThat(plan.placements()).hasSize(4).allSatisfy(p -> assertThat(p).hasSize(2));
  }

  @Test
  void missingReplicas_fillToTheReplicationFactorPreferringUnusedZones() {
    List<NodeStats> ns = List.of(node("a1", "a", 0), node("a2", "a", 0), node("b1", "b", 0), node("c1", "c", 0));
    assertThat(PreSplitPlanner.missingReplicas(List.of("a1"), ns, 3)).containsExactly("b1", "c1");
    assertThat(PreSplitPlanner.missingReplicas(List.of("a1", "b1", "c1"), ns, 3)).isEmpty();
    assertThat(PreSplitPlanner.missingReplicas(List.of("b1", "c1"), ns, 3)).containsExactly("a1");
  }

  @Test
  void missingReplicas_withFewerNodesThanTheFactor_takeEveryNode() {
    List<NodeStats> ns = nodes(0, "n1", "n2");
    assertThat(PreSplitPlanner.missingReplicas(List.of("n1"), ns, 3)).containsExactly("n2");
    assertThat(PreSplitPlanner.missingReplicas(List.of("n1", "n2"), ns, 3)).isEmpty();
  }
}
