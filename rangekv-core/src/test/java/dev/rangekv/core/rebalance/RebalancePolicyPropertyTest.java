package dev.rangekv.core.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterFixtures;
import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RebalancePolicyPropertyTest {
  static final long NOW = 10_000_000;
  private static final ControllerConfig CONFIG = ControllerConfig.builder().splitQps(1000).build();

  /** A random cluster: 2-8 nodes (maybe zoned, some dead when {@code deaths}), random ranges and loads. */
  static ClusterSnapshot randomCluster(Gen g, boolean deaths, boolean inFlight, boolean uniformLoad) {
    int n = g.between(2, 8);
    boolean zoned = g.nextBoolean();
    List<NodeStats> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      boolean dead = deaths && i > 0 && g.chance(0.2);
      long heartbeat = dead ? NOW - CONFIG.deadNodeTimeoutMillis() - 1 - g.nextInt(1000) : NOW - g.nextInt(1000);
      long capacity = !uniformLoad && g.chance(0.2) ? 2000 + g.nextInt(20_000) : 0;
      nodes.add(new NodeStats("n" + i, zoned ? "z" + g.nextInt(3) : "", capacity, heartbeat));
    }
    int r = g.between(1, Math.max(1, g.size()));
    int rf = Math.min(3, n);
    List<RangeStats> ranges = new ArrayList<>();
    for (int i = 0; i < r; i++) {
      List<String> ids = new ArrayList<>(nodes.stream().map(NodeStats::nodeId).toList());
      Collections.shuffle(ids, new Random(g.nextLong()));
      List<String> replicas = ids.subList(0, uniformLoad ? rf : g.between(1, rf));
      RangeDescriptor d = ClusterFixtures.range(i + 1, i * 10L, i == r - 1 ? -1 : (i + 1) * 10L,
          replicas.toArray(String[]::new));
      long bytes = uniformLoad ? 100 : g.chance(0.1) ? g.nextInt(5000) : g.nextInt(200);
      double qps = uniformLoad ? 10 : g.chance(0.1) ? g.nextInt(3000) : g.nextInt(100);
      String leader = !uniformLoad && g.chance(0.1) ? "" : g.pick(replicas);
      ranges.add(RangeStats.of(d, bytes, qps, leader));
    }
    List<Move> moves = new ArrayList<>();
    if (inFlight) {
      int m = g.nextInt(4);
      for (int i = 0; i < m; i++) {
        RangeStats x = g.pick(ranges);
        Set<String> free = new HashSet<>(nodes.stream().map(NodeStats::nodeId).toList());
        free.removeAll(x.range().replicas());
        if (!free.isEmpty()) {
          moves.add(Move.of(x.rangeId(), x.range().replicas().get(0), free.iterator().next(),
              Explanation.of("in flight").build()));
        }
      }
    }
    return new ClusterSnapshot(nodes, ranges, moves, List.of());
  }

  @Test
  void plans_areAlwaysLegal() {
    Property.named("rebalance-legal").cases(1000).sizes(1, 40).check(g -> {
      ClusterSnapshot s = randomCluster(g, true, true, false);
      RebalancePlan p = RebalancePolicy.plan(s, CONFIG, NOW);
      Set<String> live = new HashSet<>(s.liveNodeIds(NOW, CONFIG.deadNodeTimeoutMillis()));
      Map<String, String> zones = s.zones();
      assertThat(p.moves().size()).isLessThanOrEqualTo(Math.max(0, CONFIG.maxMovesInFlight() - s.movesInFlight().size()));
      assertThat(p.leaderTransfers().size()).isLessThanOrEqualTo(CONFIG.maxLeaderTransfers());
      Set<Long> touched = new HashSet<>();
      for (Move m : p.moves()) {
        RangeStats r = s.range(m.rangeId()).orElseThrow();
        assertThat(touched.add(m.rangeId())).as("range touched twice").isTrue();
        assertThat(s.movingRangeIds()).doesNotContain(m.rangeId());
        assertThat(live).contains(m.toNode()).containsAll(r.range().replicas());
        assertThat(r.range().replicas()).doesNotContain(m.toNode()).contains(m.fromNode().orElseThrow());
      }
      for (LeaderTransfer t : p.leaderTransfers()) {
        assertThat(touched.add(t.rangeId())).as("range touched twice").isTrue();
      }
      ClusterSnapshot after = Simulator.apply(s, p.moves(), p.leaderTransfers());
      for (int i = 0; i < s.ranges().size(); i++) {
        List<String> before = s.ranges().get(i).range().replicas();
        List<String> now = after.ranges().get(i).range().replicas();
        assertThat(new HashSet<>(now)).as("distinct nodes").hasSize(now.size());
        assertThat(Zones.distinct(now, zones)).isGreaterThanOrEqualTo(Zones.distinct(before, zones));
      }
    });
  }

  @Test
  void repeatedRebalancing_convergesWithAFallingScore() {
    int[] worst = {0};
    Property.named("rebalance-converges").cases(1000).sizes(1, 40).check(g -> {
      ClusterSnapshot s = randomCluster(g, false, false, false);
      List<String> live = s.liveNodeIds(NOW, CONFIG.deadNodeTimeoutMillis());
      int replicas = s.ranges().stream().mapToInt(r -> r.range().replicas().size()).sum();
      int bound = 2 * replicas + 10;
      double score = new ClusterLoad(live, s.ranges()).score();
      int steps = 0;
      while (true) {
        RebalancePlan p = RebalancePolicy.plan(s, CONFIG, NOW);
        if (p.isEmpty()) {
          break;
        }
        int deficit = RebalanceFixedPointPropertyTest.deficit(s, live);
        s = Simulator.apply(s, p.moves(), p.leaderTransfers());
        double next = new ClusterLoad(live, s.ranges()).score();
        if (RebalanceFixedPointPropertyTest.deficit(s, live) == deficit) { // restoring zone spread may cost score
          assertThat(next).as("score after step %d", steps).isLessThan(score);
        } else {
          assertThat(RebalanceFixedPointPropertyTest.deficit(s, live)).as("zone deficit after step %d", steps)
              .isLessThan(deficit);
        }
        score = next;
        steps++;
        assertThat(steps).as("steps to converge").isLessThanOrEqualTo(bound);
      }
      worst[0] = Math.max(worst[0], steps);
    });
    System.out.println("rebalance-converges worstSteps=" + worst[0]);
  }

  @Test
  void uniformRanges_endWithinOneReplicaOfTheBand() {
    Property.named("rebalance-uniform").cases(1000).sizes(1, 60).check(g -> {
      ClusterSnapshot s = randomCluster(g, false, false, true);
      if (s.zones().values().stream().anyMatch(z -> !z.isEmpty())) {
        s = s.withNodes(s.nodes().stream().map(x -> new NodeStats(x.nodeId(), "", 0, x.lastHeartbeatMillis())).toList());
      }
      for (int step = 0; step < 1000; step++) {
        RebalancePlan p = RebalancePolicy.plan(s, CONFIG, NOW);
        if (p.isEmpty()) {
          break;
        }
        s = Simulator.apply(s, p.moves(), p.leaderTransfers());
      }
      Map<String, Integer> count = new HashMap<>();
      s.nodes().forEach(x -> count.put(x.nodeId(), 0));
      s.ranges().forEach(r -> r.range().replicas().forEach(x -> count.merge(x, 1, Integer::sum)));
      double mean = count.values().stream().mapToInt(Integer::intValue).average().orElse(0);
      double slack = Math.max(1, CONFIG.balanceTolerance() * mean) + 1;
      assertThat(count.values()).allSatisfy(c -> assertThat(Math.abs(c - mean)).isLessThanOrEqualTo(slack));
    });
  }

  /** Per live node: replicas, bytes, leader QPS, leaders, counted from the descriptors (brute force). */
  private static Map<String, double[]> loads(ClusterSnapshot s, List<String> live) {
    Map<String, double[]> out = new HashMap<>();
    live.forEach(n -> out.put(n, new double[4]));
    for (RangeStats r : s.ranges()) {
      for (String n : r.range().replicas()) {
        if (out.containsKey(n)) {
          out.get(n)[0] += 1;
          out.get(n)[1] += r.bytes();
        }
      }
      if (out.containsKey(r.leaderNodeId())) {
        out.get(r.leaderNodeId())[2] += r.qps();
        out.get(r.leaderNodeId())[3] += 1;
      }
    }
    return out;
  }

  @Test
  void balancing_startsOnlyWhenANodeIsOutOfTheBandByTheMargin() {
    Property.named("rebalance-margin").cases(1000).sizes(1, 40).check(g -> {
      // no zones, no deaths, no moves in flight, no recent splits: only balancing can act
      ClusterSnapshot s = randomCluster(g, false, false, g.nextBoolean());
      s = s.withNodes(s.nodes().stream().map(x -> new NodeStats(x.nodeId(), "", 0, x.lastHeartbeatMillis())).toList());
      List<String> live = s.liveNodeIds(NOW, CONFIG.deadNodeTimeoutMillis());
      Map<String, double[]> loads = loads(s, live);
      boolean beyondMargin = false;
      for (int d = 0; d < 4; d++) {
        final int dim = d;
        double mean = loads.values().stream().mapToDouble(v -> v[dim]).sum() / live.size();
        double slack = CONFIG.balanceTolerance() * mean;
        slack = d == 0 || d == 3 ? Math.max(slack, 1) + RebalancePolicy.TRIGGER_MARGIN / 2
            : slack * (1 + RebalancePolicy.TRIGGER_MARGIN);
        for (double[] v : loads.values()) {
          beyondMargin |= Math.abs(v[d] - mean) > slack;
        }
      }
      RebalancePlan p = RebalancePolicy.plan(s, CONFIG, NOW);
      if (!beyondMargin) {
        assertThat(p.isEmpty()).as("%s", p.why()).isTrue();
      }
    });
  }
}
