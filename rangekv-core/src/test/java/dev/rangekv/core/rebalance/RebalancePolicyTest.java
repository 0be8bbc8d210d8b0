package dev.rangekv.core.rebalance;

import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static dev.rangekv.core.cluster.ClusterFixtures.stats;
import static dev.rangekv.core.cluster.ClusterFixtures.tiled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RebalancePolicyTest {
  private static final long NOW = 1_000_000;
  private final ControllerConfig config = ControllerConfig.builder().splitQps(1000).build();

  private static List<RangeStats> uniform(List<RangeDescriptor> ds, long bytes, double qps) {
    List<RangeStats> out = new ArrayList<>();
    for (int i = 0; i < ds.size(); i++) {
      RangeDescriptor d = ds.get(i);
      out.add(RangeStats.of(d, bytes, qps, d.replicas().get(i % d.replicas().size())));
    }
    return out;
  }

  @Test
  void newEmptyNode_receivesReplicasTwoAtATime() {
    List<RangeStats> rs = uniform(tiled(12, "n1", "n2", "n3"), 100, 10);
    ClusterSnapshot s = ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3", "n4"), rs);
    RebalancePlan p = RebalancePolicy.plan(s, config, NOW);
    assertThat(p.moves()).hasSize(2).allSatisfy(m -> assertThat(m.toNode()).isEqualTo("n4"));
    assertThat(p.moves().get(0).why().toString()).contains("toReplicas=0").contains("meanReplicas=9");
  }

  @Test
  void movesInFlight_useUpTheBudget() {
    List<RangeStats> rs = uniform(tiled(12, "n1", "n2", "n3"), 100, 10);
    Move inFlight = Move.of(1, "n1", "n4", Explanation.of("earlier").build());
    ClusterSnapshot s = new ClusterSnapshot(nodes(NOW, "n1", "n2", "n3", "n4"), rs,
        List.of(inFlight, Move.of(2, "n2", "n4", inFlight.why())), List.of());
    RebalancePlan p = RebalancePolicy.plan(s, config, NOW);
    assertThat(p.moves()).isEmpty();
  }

  @Test
  void aRangeRepairedWhileItsZoneWasDown_regainsTheZoneWhenANodeThereIsLive() {
    // z1: n1, n4, n5; z2: n2; z3: n3. r1 was repaired onto n4 while n2 was dead; n2 is back.
    List<NodeStats> ns = List.of(new NodeStats("n1", "z1", 0, NOW), new NodeStats("n2", "z2", 0, NOW),
        new NodeStats("n3", "z3", 0, NOW), new NodeStats("n4", "z1", 0, NOW), new NodeStats("n5", "z1", 0, NOW));
    List<RangeStats> rs = List.of(RangeStats.of(range(1, 0, -1, "n1", "n4", "n3"), 100, 10, "n1"));
    RebalancePlan p = RebalancePolicy.plan(ClusterSnapshot.of(ns, rs), config, NOW);
    assertThat(p.moves()).singleElement().satisfies(m -> {
      assertThat(m.fromNode()).as("the follower of the crowded zone, not its leader").contains("n4");
      assertThat(m.toNode()).isEqualTo("n2");
      assertThat(m.why().reason()).isEqualTo("rebalance: replicas share a zone while a live node offers one they do"
          + " not cover");
    });
    // while that move is in flight the range is left alone
    ClusterSnapshot moving = new ClusterSnapshot(ns, rs, p.moves(), List.of());
    assertThat(RebalancePolicy.plan(moving, config, NOW).moves()).isEmpty();
  }

  @Test
  void balancedCluster_isLeftAlone() {
    ClusterSnapshot s = ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3"), uniform(tiled(9, "n1", "n2", "n3"), 100, 10));
    RebalancePlan p = RebalancePolicy.plan(s, config, NOW);
    assertThat(p.isEmpty()).isTrue();
    assertThat(p.why().reason()).isEqualTo("balanced within tolerance");
  }

  @Test
  void allLeadersOnOneNode_areSpreadByTransfers() {
    List<RangeStats> rs = new ArrayList<>();
    for (RangeDescriptor d : tiled(9, "n1", "n2", "n3")) {
      rs.add(RangeStats.of(d, 100, 10, "n1"));
    }
    ClusterSnapshot s = ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3"), rs);
    RebalancePlan p = RebalancePolicy.plan(s, config, NOW);
    assertThat(p.moves()).isEmpty();
    assertThat(p.leaderTransfers()).hasSize(4).allSatisfy(t -> assertThat(t.fromNode()).isEqualTo("n1"));
  }

  @Test
  void loadSplitHalves_onTheSameNodes_getOneHalfMoved() {
    RangeStats left = RangeStats.of(range(1, 0, 500, "n1", "n2", "n3"), 100, 800, "n1");
    RangeStats right = RangeStats.of(range(2, 500, -1, "n1", "n2", "n3"), 100, 900, "n1");
    ClusterSnapshot s = new ClusterSnapshot(nodes(NOW, "n1", "n2", "n3", "n4"), List.of(left, right), List.of(),
        List.of(new SplitEvent(1, 2, SplitCause.LOAD, NOW - 1000)));
    RebalancePlan p = RebalancePolicy.plan(s, config, NOW);
    assertThat(p.moves()).first().satisfies(m -> {
      assertThat(m.rangeId()).isEqualTo(2);
      assertThat(m.fromNode()).contains("n1");
      assertThat(m.toNode()).isEqualTo("n4");
      assertThat(m.why().reason()).contains("load split");
    });
  }

  @Test
  void appendSplit_movesTheEmptyTailToTheLeastLoadedNode() {
    RangeStats filled = RangeStats.of(range(1, 0, 500, "n1", "n2", "n3"), 5000, 2000, "n1");
    RangeStats tail = RangeStats.of(range(2, 500, -1, "n1", "n2", "n3"), 0, 0, "n1");
    RangeStats other = RangeStats.of(range(3, 600, 700, "n2", "n3", "n4"), 10, 300, "n4");
    List<RangeStats> rs = List.of(filled, tail.withRange(range(2, 500, 600, "n1", "n2", "n3")), other,
        RangeStats.of(range(4, 700, -1, "n2", "n3", "n5"), 10, 5, "n2"));
    ClusterSnapshot s = new ClusterSnapshot(nodes(NOW, "n1", "n2", "n3", "n4", "n5"), rs, List.of(),
        List.of(new SplitEvent(1, 2, SplitCause.APPEND, NOW - 1000)));
    RebalancePlan p = RebalancePolicy.plan(s, config, NOW);
    assertThat(p.moves()).first().satisfies(m -> {
      assertThat(m.rangeId()).isEqualTo(2);
      assertThat(m.toNode()).isEqualTo("n5");
      assertThat(m.why().reason()).contains("append split");
    });
  }

  @Test
  void replicasInOneZone_neverGainASecondReplicaThere() {
    List<NodeStats> ns = List.of(new NodeStats("a1", "a", 0, NOW), new NodeStats("a2", "a", 0, NOW),
        new NodeStats("b1", "b", 0, NOW), new NodeStats("c1", "c", 0, NOW));
    List<RangeStats> rs = uniform(tiled(8, "a1", "b1", "c1"), 100, 10);
    RebalancePlan p = RebalancePolicy.plan(ClusterSnapshot.of(ns, rs), config, NOW);
    assertThat(p.moves()).isNotEmpty().allSatisfy(m -> {
      assertThat(m.toNode()).isEqualTo("a2");
      assertThat(m.fromNode()).contains("a1");
    });
  }

  @Test
  void rangesWithAReplicaOnADeadNode_areLeftToRepair() {
    List<RangeStats> rs = uniform(tiled(6, "n1", "n2", "n3"), 100, 10);
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, "n1", "n2", "n4"));
    ns.add(NodeStats.of("n3", NOW - config.deadNodeTimeoutMillis() - 1));
    assertThat(RebalancePolicy.plan(ClusterSnapshot.of(ns, rs), config, NOW).moves()).isEmpty();
  }

  @Test
  void oneLiveNode_planNothing() {
    ClusterSnapshot s = ClusterSnapshot.of(nodes(NOW, "n1"), List.of(stats(range(1, 0, -1, "n1"), 1, 1)));
    assertThat(RebalancePolicy.plan(s, config, NOW).why().reason()).contains("fewer than two");
  }
}
