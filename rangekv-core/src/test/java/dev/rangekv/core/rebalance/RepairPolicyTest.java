package dev.rangekv.core.rebalance;

import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static dev.rangekv.core.cluster.ClusterFixtures.stats;
import static dev.rangekv.core.cluster.ClusterFixtures.tiled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RepairPolicyTest {
  private static final long NOW = RebalancePolicyPropertyTest.NOW;
  private final ControllerConfig config = ControllerConfig.defaults();

  private List<NodeStats> withDead(String dead, String... live) {
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, live));
    ns.add(NodeStats.of(dead, NOW - config.deadNodeTimeoutMillis() - 1));
    return ns;
  }

  @Test
  void deadNodesReplicas_areRecreatedOnLiveNodesWithoutOne() {
    List<RangeStats> rs = new ArrayList<>();
    for (RangeDescriptor d : tiled(3, "n1", "n2", "n3")) {
      rs.add(stats(d, 100, 1));
    }
    RepairPlan p = RepairPolicy.plan(ClusterSnapshot.of(withDead("n3", "n1", "n2", "n4", "n5"), rs), config, NOW);
    assertThat(p.moves()).hasSize(3).allSatisfy(m -> {
      assertThat(m.fromNode()).contains("n3");
      assertThat(m.toNode()).isIn("n4", "n5");
      assertThat(m.why().reason()).contains("dead node");
    });
    assertThat(p.moves().stream().filter(m -> m.toNode().equals("n4")).count()).isBetween(1L, 2L);
  }

  @Test
  void silentButNotYetDead_isLeftAlone() {
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, "n1", "n2", "n4"));
    ns.add(NodeStats.of("n3", NOW - config.deadNodeTimeoutMillis()));
    RepairPlan p = RepairPolicy.plan(ClusterSnapshot.of(ns, List.of(stats(range(1, 0, -1, "n1", "n2", "n3"), 1, 1))),
        config, NOW);
    assertThat(p.moves()).isEmpty();
    assertThat(p.why().reason()).isEqualTo("fully replicated");
  }

  @Test
  void lostQuorum_isBlockedNotMoved() {
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, "n1", "n4", "n5"));
    ns.add(NodeStats.of("n2", 0));
    ns.add(NodeStats.of("n3", 0));
    RepairPlan p = RepairPolicy.plan(ClusterSnapshot.of(ns, List.of(stats(range(1, 0, -1, "n1", "n2", "n3"), 1, 1))),
        config, 10 * config.deadNodeTimeoutMillis());
    assertThat(p.moves()).isEmpty();
    assertThat(p.blocked()).singleElement().satisfies(b -> assertThat(b.why().reason()).contains("quorum lost"));
  }

  @Test
  void deadReplicaOfARangeAtItsTarget_isDroppedWithoutAReplacement() {
    RepairPlan p = RepairPolicy.plan(ClusterSnapshot.of(withDead("n4", "n1", "n2", "n3"),
        List.of(stats(range(1, 0, -1, "n1", "n2", "n3", "n4"), 1, 1))), config, NOW);
    assertThat(p.moves()).isEmpty();
    assertThat(p.removals()).singleElement().satisfies(r -> {
      assertThat(r.nodeId()).isEqualTo("n4");
      assertThat(r.why().reason()).contains("dead node");
    });
  }

  @Test
  void overReplicatedLiveRange_dropsANonLeaderReplica_butNotWithoutAKnownLeader() {
    RangeDescriptor d = range(1, 0, -1, "n1", "n2", "n3", "n4");
    RepairPlan p = RepairPolicy.plan(ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3", "n4"),
        List.of(stats(d, 1, 1))), config, NOW);
    assertThat(p.removals()).singleElement().satisfies(r -> {
      assertThat(r.nodeId()).isNotEqualTo("n1").isIn("n2", "n3", "n4");
      assertThat(r.why().reason()).contains("over-replicated");
    });
    RepairPlan leaderless = RepairPolicy.plan(ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3", "n4"),
        List.of(stats(d, 1, 1).withLeader(""))), config, NOW);
    assertThat(leaderless.removals()).isEmpty();
  }

  /** A move that added a replica in a zone the range already spans leaves it over-replicated in that zone. */
  @Test
  void overReplicatedRange_dropsAReplicaWhoseLossKeepsItsZones() {
    Property.named("repair-surplus-keeps-zones").cases(500).sizes(1, 20).check(g -> {
      List<NodeStats> ns = new ArrayList<>();
      int n = g.between(4, 9);
      for (int i = 0; i < n; i++) {
        ns.add(new NodeStats("n" + i, "z" + g.nextInt(3), 0, NOW));
      }
      List<String> ids = new ArrayList<>(ns.stream().map(NodeStats::nodeId).toList());
      Collections.shuffle(ids, new Random(g.nextLong()));
      List<String> replicas = ids.subList(0, g.between(4, Math.min(5, n)));
      List<RangeStats> ranges = new ArrayList<>();
      ranges.add(stats(range(1, 0, 100, replicas.toArray(String[]::new)), 1, 1).withLeader(g.pick(replicas)));
      for (int i = 0; i < g.size(); i++) { // other ranges, so the nodes' replica counts differ
        List<String> other = new ArrayList<>(ids);
        Collections.shuffle(other, new Random(g.nextLong()));
        ranges.add(stats(range(i + 2, 100 + i * 10L, i == g.size() - 1 ? -1 : 110 + i * 10L,
            other.subList(0, 3).toArray(String[]::new)), 1, 1));
      }
      ClusterSnapshot s = ClusterSnapshot.of(ns, ranges);
      RepairPlan p = RepairPolicy.plan(s, ControllerConfig.builder().replicationFactor(3).build(), NOW);
      RangeStats r = ranges.get(0);
      int zones = Zones.distinct(replicas, s.zones());
      boolean someKeeps = replicas.stream().filter(x -> !x.equals(r.leaderNodeId()))
          .anyMatch(x -> Zones.distinct(without(replicas, x), s.zones()) == zones);
      assertThat(p.removals()).filteredOn(x -> x.rangeId() == 1).singleElement().satisfies(x -> {
        assertThat(x.nodeId()).isNotEqualTo(r.leaderNodeId()).isIn(replicas);
        if (someKeeps) {
          assertThat(Zones.distinct(without(replicas, x.nodeId()), s.zones())).as("zones after dropping %s from %s in %s",
              x.nodeId(), replicas, s.zones()).isEqualTo(zones);
        }
      });
    });
  }

  private static List<String> without(List<String> replicas, String n) {
    List<String> rest = new ArrayList<>(replicas);
    rest.remove(n);
    return rest;
  }

  @Test
  void underReplicatedRange_getsReplicasAdded_preferringNewZones() {
    List<NodeStats> ns = List.of(new NodeStats("a1", "a", 0, NOW), new NodeStats("a2", "a", 0, NOW),
        new NodeStats("b1", "b", 0, NOW), new NodeStats("c1", "c", 0, NOW));
    RepairPlan p = RepairPolicy.plan(ClusterSnapshot.of(ns, List.of(stats(range(1, 0, -1, "a1"), 1, 1))), config, NOW);
    assertThat(p.moves()).extracting(Move::toNode).containsExactlyInAnyOrder("b1", "c1");
    assertThat(p.moves()).allSatisfy(m -> assertThat(m.fromNode()).isEmpty());
  }

  @Test
  void repeatedRepair_restoresFullReplicationOnDistinctLiveNodes() {
    Property.named("repair-converges").cases(1000).sizes(1, 40).check(g -> {
      ClusterSnapshot s = RebalancePolicyPropertyTest.randomCluster(g, true, false, false);
      Set<String> live = new HashSet<>(s.liveNodeIds(NOW, config.deadNodeTimeoutMillis()));
      int target = Math.min(config.replicationFactor(), live.size());
      for (int step = 0; step < 100; step++) {
        RepairPlan p = RepairPolicy.plan(s, config, NOW);
        assertThat(p.moves().size() + p.removals().size()).isLessThanOrEqualTo(config.maxRepairsInFlight());
        if (p.moves().isEmpty() && p.removals().isEmpty()) {
          break;
        }
        assertThat(p.moves()).allSatisfy(m -> assertThat(live).contains(m.toNode()));
        ClusterSnapshot before = s;
        assertThat(p.removals()).filteredOn(r -> live.contains(r.nodeId())).allSatisfy(r -> assertThat(r.nodeId())
            .isNotEqualTo(before.range(r.rangeId()).orElseThrow().leaderNodeId()));
        s = removeReplicas(Simulator.apply(s, p.moves(), List.of()), p.removals());
      }
      RepairPlan last = RepairPolicy.plan(s, config, NOW);
      Set<Long> blocked = new HashSet<>();
      last.blocked().forEach(b -> blocked.add(b.rangeId()));
      for (RangeStats r : s.ranges()) {
        List<String> replicas = r.range().replicas();
        assertThat(new HashSet<>(replicas)).hasSize(replicas.size());
        if (!blocked.contains(r.rangeId())) {
          assertThat(replicas.stream().filter(live::contains).count()).as("live replicas of %s", r.range())
              .isGreaterThanOrEqualTo(target);
          assertThat(replicas.size()).as("replicas of %s (none dead or extra left)", r.range())
              .isLessThanOrEqualTo(Math.max(target, r.leaderNodeId().isEmpty() ? replicas.size() : target));
        } else {
          assertThat(replicas.stream().filter(live::contains).count() * 2).isLessThanOrEqualTo(replicas.size());
        }
      }
    });
  }

  /** Drops each removal's replica from its range (generation + 1), as the executor would. */
  static ClusterSnapshot removeReplicas(ClusterSnapshot s, List<RepairPlan.Removal> removals) {
    List<RangeStats> out = new ArrayList<>();
    for (RangeStats r : s.ranges()) {
      RangeDescriptor d = r.range();
      for (RepairPlan.Removal rm : removals) {
        if (rm.rangeId() == d.rangeId()) {
          List<String> replicas = new ArrayList<>(d.replicas());
          replicas.remove(rm.nodeId());
          d = new RangeDescriptor(d.rangeId(), d.start(), d.end(), replicas, d.generation() + 1);
        }
      }
      out.add(r.withRange(d));
    }
    return s.withRanges(out);
  }
}
