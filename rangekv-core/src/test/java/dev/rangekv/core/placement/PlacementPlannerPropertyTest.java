package dev.rangekv.core.placement;

import dev.rangekv.core.cluster.LabelConstraint;

import dev.rangekv.core.cluster.PlacementRules;

import dev.rangekv.core.cluster.PlacementRule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterFixtures;
import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.controller.ControllerPlanner;
import dev.rangekv.core.controller.ControllerState;
import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The controller's planner under placement rules, against a brute-force model: random clusters (zones,
 * labels, dead nodes) and rules. The model picks a range's rule by scanning every rule, and decides
 * whether a conforming placement exists by enumerating every set of live nodes.
 */
class PlacementPlannerPropertyTest {
  static final long NOW = 10_000_000;
  static final ControllerConfig CONFIG = ControllerConfig.builder().splitQps(1_000_000).build();
  static final List<String> ZONES = List.of("z0", "z1", "z2", "z3");

  /** Nodes n0..: random zones, region by zone, random disk; some dead (never all). */
  static List<NodeStats> nodes(Gen g) {
    int n = g.between(3, 9);
    List<NodeStats> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String zone = g.pick(ZONES);
      boolean dead = i > 0 && g.chance(0.15);
      long hb = dead ? NOW - CONFIG.deadNodeTimeoutMillis() - 1 : NOW;
      out.add(new NodeStats("n" + i, zone, 0, hb, Map.of("region", zone.compareTo("z2") < 0 ? "eu" : "us",
          "disk", g.chance(0.7) ? "ssd" : "hdd")));
    }
    return out;
  }

  static PlacementRule rule(Gen g, Key start, RangeEnd end) {
    List<LabelConstraint> cs = new ArrayList<>();
    List<String> pool = new ArrayList<>(List.of("+disk=ssd", "-disk=hdd", "+region=eu", "-region=us", "-zone=z3",
        "+zone=z1", "-zone=z0"));
    int c = g.nextInt(3);
    for (int i = 0; i < c; i++) {
      String t = pool.remove(g.nextInt(pool.size()));
      cs.add(LabelConstraint.parse(t));
    }
    List<String> zones = new ArrayList<>();
    if (g.chance(0.5)) {
      List<String> zpool = new ArrayList<>(ZONES);
      int k = g.between(1, 3);
      for (int i = 0; i < k; i++) {
        zones.add(zpool.remove(g.nextInt(zpool.size())));
      }
    }
    List<String> leaders = new ArrayList<>();
    List<String> lpool = new ArrayList<>(zones.isEmpty() ? ZONES : zones);
    int l = g.nextInt(Math.min(3, lpool.size() + 1));
    for (int i = 0; i < l; i++) {
      leaders.add(lpool.remove(g.nextInt(lpool.size())));
    }
    int replicas = List.of(1, 3, 3, 5).get(g.nextInt(4));
    return new PlacementRule(start, end, replicas, cs, zones, leaders, 0);
  }

  /** Ranges tiling at k(10), k(20), ...; replicas random (maybe on dead nodes), leader a live replica or none. */
  static List<RangeStats> ranges(Gen g, List<NodeStats> nodes, int count) {
    Set<String> live = live(nodes);
    List<RangeStats> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<String> ids = new ArrayList<>(nodes.stream().map(NodeStats::nodeId).toList());
      List<String> replicas = new ArrayList<>();
      int rf = g.between(1, Math.min(3, ids.size()));
      for (int j = 0; j < rf; j++) {
        replicas.add(ids.remove(g.nextInt(ids.size())));
      }
      RangeDescriptor d = ClusterFixtures.range(i + 1, i * 10L, i == count - 1 ? -1 : (i + 1) * 10L,
          replicas.toArray(String[]::new));
      List<String> liveReplicas = replicas.stream().filter(live::contains).toList();
      String leader = liveReplicas.isEmpty() || g.chance(0.1) ? "" : g.pick(liveReplicas);
      out.add(RangeStats.of(d, g.nextInt(200), g.nextInt(100), leader));
    }
    return out;
  }

  static Set<String> live(List<NodeStats> nodes) {
    Set<String> out = new HashSet<>();
    nodes.stream().filter(n -> n.isLive(NOW, CONFIG.deadNodeTimeoutMillis())).forEach(n -> out.add(n.nodeId()));
    return out;
  }

  /** The model's rule of a range: scan every rule covering it; greatest start, then smallest end. */
  static PlacementRule modelRule(List<PlacementRule> rules, RangeDescriptor d) {
    PlacementRule best = null;
    for (PlacementRule r : rules) {
      boolean covers = r.start().compareTo(d.start()) <= 0 && r.end().compareTo(d.end()) >= 0;
      if (covers && (best == null || r.start().compareTo(best.start()) > 0
          || (r.start().equals(best.start()) && r.end().compareTo(best.end()) < 0))) {
        best = r;
      }
    }
    return best;
  }

  /** The model's eligibility: every constraint by label, zone list by zone. */
  static boolean modelAllows(PlacementRule r, NodeStats n) {
    if (!r.zones().isEmpty() && !r.zones().contains(n.zone())) {
      return false;
    }
    for (LabelConstraint c : r.constraints()) {
      String v = c.key().equals("zone") ? n.zone() : n.labels().get(c.key());
      if (c.value().equals(v) != c.required()) {
        return false;
      }
    }
    return true;
  }

  @Test
  void noPlan_placesAReplicaWhereItsRuleForbids_norMovesALeaderToALessPreferredZone() {
    Property.named("placement-safe").cases(600).sizes(1, 12).check(g -> {
      List<NodeStats> nodes = nodes(g);
      List<RangeStats> ranges = ranges(g, nodes, g.between(1, g.size()));
      List<PlacementRule> rules = new ArrayList<>();
      int k = g.nextInt(4);
      for (int i = 0; i < k; i++) {
        long a = g.nextInt(g.size() * 10 + 5);
        long b = a + 1 + g.nextInt(40);
        Key start = a == 0 ? Key.EMPTY : ClusterFixtures.k(a);
        RangeEnd end = g.chance(0.2) ? RangeEnd.INFINITY : RangeEnd.at(ClusterFixtures.k(b));
        PlacementRule r = rule(g, start, end);
        if (rules.stream().noneMatch(x -> x.sameSpan(r))) {
          rules.add(r);
        }
      }
      PlacementRules set = new PlacementRules(1, rules);
      ClusterSnapshot s = new ClusterSnapshot(nodes, ranges, List.of(), List.of(), set);
      TickPlan plan = ControllerPlanner.tick(s, ControllerState.INITIAL, CONFIG, NOW);
      Map<String, NodeStats> byId = s.nodesById();
      List<Move> moves = new ArrayList<>(plan.repair().moves());
      moves.addAll(plan.placement().moves());
      moves.addAll(plan.rebalance().moves());
      for (MergeDecision m : plan.merges()) {
        if (m instanceof MergeDecision.CoLocateFirst c) {
          moves.addAll(c.moves());
        }
      }
      for (Move m : moves) {
        RangeDescriptor d = s.range(m.rangeId()).orElseThrow().range();
        PlacementRule r = modelRule(rules, d);
        if (r != null) {
          assertThat(modelAllows(r, byId.get(m.toNode()))).as("%s under %s", m, r).isTrue();
        }
      }
      List<LeaderTransfer> transfers = new ArrayList<>(plan.placement().leaderTransfers());
      transfers.addAll(plan.rebalance().leaderTransfers());
      for (LeaderTransfer t : transfers) {
        PlacementRule r = modelRule(rules, s.range(t.rangeId()).orElseThrow().range());
        if (r != null) {
          assertThat(r.leaderRank(byId.get(t.toNode()).zone()))
              .as("%s under %s", t, r).isLessThanOrEqualTo(r.leaderRank(byId.get(t.fromNode()).zone()));
        }
      }
      for (MergeDecision m : plan.merges()) {
        if (!(m instanceof MergeDecision.Declined)) {
          assertThat(modelRule(rules, s.range(m.leftRangeId()).orElseThrow().range()))
              .as("merge %s under one rule", m)
              .isEqualTo(modelRule(rules, s.range(m.rightRangeId()).orElseThrow().range()));
        }
      }
    });
  }

  @Test
  void whenAConformingPlacementExists_repeatedTicksReachIt() {
    Property.named("placement-converges").cases(300).sizes(1, 8).check(g -> {
      List<NodeStats> nodes = nodes(g);
      int count = g.between(1, g.size());
      List<RangeStats> ranges = ranges(g, nodes, count);
      List<PlacementRule> rules = new ArrayList<>();
      int k = g.nextInt(3) + 1;
      for (int i = 0; i < k; i++) { // spans on range boundaries: no splits needed
        int a = g.nextInt(count);
        int b = a + 1 + g.nextInt(count - a);
        PlacementRule r = rule(g, a == 0 ? Key.EMPTY : ClusterFixtures.k(a * 10L),
            b >= count ? RangeEnd.INFINITY : RangeEnd.at(ClusterFixtures.k(b * 10L)));
        if (rules.stream().noneMatch(x -> x.sameSpan(r))) {
          rules.add(r);
        }
      }
      Set<String> live = live(nodes);
      Map<String, NodeStats> byId = new HashMap<>();
      nodes.forEach(n -> byId.put(n.nodeId(), n));
      Map<Long, RangeStats> state = new HashMap<>();
      ranges.forEach(r -> state.put(r.rangeId(), r));
      for (int tick = 0; tick < 60; tick++) {
        List<RangeStats> now = ranges.stream().map(r -> state.get(r.rangeId())).toList();
        TickPlan plan = ControllerPlanner.tick(new ClusterSnapshot(nodes, now, List.of(), List.of(),
            new PlacementRules(1, rules)), ControllerState.INITIAL, CONFIG, NOW);
        List<Move> moves = new ArrayList<>(plan.repair().moves());
        moves.addAll(plan.placement().moves());
        moves.addAll(plan.rebalance().moves());
        for (Move m : moves) {
          RangeStats r = state.get(m.rangeId());
          List<String> reps = new ArrayList<>(r.range().replicas());
          String leader = r.leaderNodeId();
          if (m.fromNode().isPresent()) {
            reps.set(reps.indexOf(m.fromNode().get()), m.toNode());
            leader = leader.equals(m.fromNode().get()) ? m.toNode() : leader;
          } else {
            reps.add(m.toNode());
          }
          state.put(r.rangeId(), r.withRange(r.range().withReplicas(reps, r.range().generation() + 1))
              .withLeader(leader));
        }
        for (RepairPlan.Removal x : plan.repair().removals()) {
          RangeStats r = state.get(x.rangeId());
          List<String> reps = new ArrayList<>(r.range().replicas());
          reps.remove(x.nodeId());
          state.put(r.rangeId(), r.withRange(r.range().withReplicas(reps, r.range().generation() + 1)));
        }
        List<LeaderTransfer> transfers = new ArrayList<>(plan.placement().leaderTransfers());
        transfers.addAll(plan.rebalance().leaderTransfers());
        for (LeaderTransfer t : transfers) {
          state.put(t.rangeId(), state.get(t.rangeId()).withLeader(t.toNode()));
        }
        for (Long id : state.keySet()) { // an election: a live replica leads
          RangeStats r = state.get(id);
          if (!live.contains(r.leaderNodeId())) {
            String l = r.range().replicas().stream().filter(live::contains).findFirst().orElse("");
            state.put(id, r.withLeader(l));
          }
        }
      }
      for (RangeStats initial : ranges) {
        PlacementRule r = modelRule(rules, initial.range());
        long liveReplicas = initial.range().replicas().stream().filter(live::contains).count();
        if (r == null || liveReplicas * 2 <= initial.range().replicas().size()) {
          continue; // no rule, or quorum lost: nothing can change its membership
        }
        List<NodeStats> eligible = nodes.stream().filter(n -> live.contains(n.nodeId()) && modelAllows(r, n)).toList();
        int target = Math.min(r.replicas(), live.size());
        int bestSpread = bestSpread(eligible, target);
        if (bestSpread < 0) {
          continue; // too few eligible live nodes: no conforming placement exists
        }
        RangeStats end = state.get(initial.rangeId());
        List<String> reps = end.range().replicas();
        assertThat(reps).as("r%d under %s", initial.rangeId(), r).hasSize(target);
        for (String n : reps) {
          assertThat(live.contains(n) && modelAllows(r, byId.get(n))).as("replica %s of %s under %s", n, end.range(), r)
              .isTrue();
        }
        assertThat(domains(reps.stream().map(byId::get).toList())).as("spread of %s under %s", end.range(), r)
            .isEqualTo(bestSpread);
        if (!r.leaderZones().isEmpty()) {
          int bestRank = eligible.stream().mapToInt(n -> r.leaderRank(n.zone())).min().orElseThrow();
          assertThat(r.leaderRank(byId.get(end.leaderNodeId()).zone())).as("leader of %s under %s", end, r)
              .isEqualTo(bestRank);
        }
      }
    });
  }

  /** The most failure domains any {@code size} of {@code nodes} span; -1 when there are fewer nodes. */
  static int bestSpread(List<NodeStats> nodes, int size) {
    if (nodes.size() < size) {
      return -1;
    }
    int best = 0;
    for (int mask = 0; mask < (1 << nodes.size()); mask++) {
      if (Integer.bitCount(mask) == size) {
        List<NodeStats> pick = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
          if ((mask & (1 << i)) != 0) {
            pick.add(nodes.get(i));
          }
        }
        best = Math.max(best, domains(pick));
      }
    }
    return best;
  }

  static int domains(List<NodeStats> nodes) {
    Set<String> z = new HashSet<>();
    nodes.forEach(n -> z.add(n.zone().isEmpty() ? "node:" + n.nodeId() : n.zone()));
    return z.size();
  }
}
