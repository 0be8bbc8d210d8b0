package dev.rangekv.core.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterFixtures;
import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.placement.Spread;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The rebalancer over many ticks of a cluster whose load does not change, executed the way the
 * controller executes it: a move stays in flight for 1 to 3 ticks (the planner sees it in the
 * snapshot's moves in flight, its range still on the old nodes), a leader's replica that moves hands
 * its leadership to another old replica (the mover transfers leadership before removing it), and a
 * transfer takes effect by the next tick. A brute-force model recomputes from scratch, after each tick,
 * what the cluster will look like once everything in flight has landed: its zone deficit (replicas a
 * range could still spread over uncovered zones) and its load score. Every tick that plans anything
 * must lower that pair (deficit first, then score), so the cluster reaches a fixed point, where
 * repeated ticks make no moves, and there every range spans as many zones as the live nodes offer.
 */
class RebalanceFixedPointPropertyTest {
  static final long NOW = 10_000_000;
  private static final ControllerConfig CONFIG = ControllerConfig.builder().splitQps(1_000_000).build();

  /** A move in flight and the ticks until it lands. */
  record Pending(Move move, int ticksLeft) {}

  @Test
  void aStableCluster_reachesAFixedPoint_withEveryTickLoweringDeficitThenScore() {
    int[] worst = {0};
    Property.named("rebalance-fixed-point").cases(600).sizes(1, 40).check(g -> {
      ClusterSnapshot s = cluster(g);
      List<String> live = s.liveNodeIds(NOW, CONFIG.deadNodeTimeoutMillis());
      List<Pending> pending = new ArrayList<>();
      double[] potential = potential(s, live);
      int bound = 8 * s.ranges().size() * 3 + 40;
      int quiet = 0;
      int tick = 0;
      while (quiet < 5) {
        tick++;
        assertThat(tick).as("ticks to reach a fixed point").isLessThanOrEqualTo(bound);
        List<Pending> still = new ArrayList<>();
        for (Pending p : pending) {
          if (p.ticksLeft() <= 1) {
            s = land(s, p.move());
          } else {
            still.add(new Pending(p.move(), p.ticksLeft() - 1));
          }
        }
        pending = still;
        List<Move> inFlight = pending.stream().map(Pending::move).toList();
        RebalancePlan plan = RebalancePolicy.plan(s.withMovesInFlight(inFlight), CONFIG, NOW);
        for (Move m : plan.moves()) {
          assertThat(inFlight).as("a range with a move in flight is left alone")
              .noneMatch(x -> x.rangeId() == m.rangeId());
          pending.add(new Pending(m, g.between(1, 3)));
        }
        s = transfer(s, plan.leaderTransfers());
        if (plan.isEmpty()) {
          quiet = pending.isEmpty() ? quiet + 1 : 0;
          continue;
        }
        quiet = 0;
        double[] next = potential(landAll(s, pending), live);
        boolean lower = next[0] < potential[0] || (next[0] == potential[0] && next[1] < potential[1] - 1e-9);
        assertThat(lower).as("tick %d lowers (deficit, score) from %s to %s: %s", tick,
            java.util.Arrays.toString(potential), java.util.Arrays.toString(next), plan).isTrue();
        potential = next;
      }
      assertThat(deficit(s, live)).as("zone deficit at the fixed point").isZero();
      worst[0] = Math.max(worst[0], tick);
    });
    System.out.println("rebalance-fixed-point worstTicks=" + worst[0]);
  }

  /** 2-8 live nodes, zoned (3 zones of uneven size) or not, ranges with random replicas and fixed load. */
  static ClusterSnapshot cluster(Gen g) {
    int n = g.between(2, 8);
    boolean zoned = g.chance(0.8);
    List<NodeStats> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String zone = !zoned ? "" : i < 3 ? "z" + i : "z" + (g.chance(0.6) ? 0 : g.nextInt(3));
      nodes.add(new NodeStats("n" + i, zone, 0, NOW - g.nextInt(1000)));
    }
    int count = g.between(1, Math.max(1, g.size()));
    int rf = Math.min(3, n);
    List<RangeStats> ranges = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<String> ids = new ArrayList<>(nodes.stream().map(NodeStats::nodeId).toList());
      Collections.shuffle(ids, new Random(g.nextLong()));
      List<String> replicas = ids.subList(0, g.chance(0.1) ? 1 : rf);
      RangeDescriptor d = ClusterFixtures.range(i + 1, i * 10L, i == count - 1 ? -1 : (i + 1) * 10L,
          replicas.toArray(String[]::new));
      long bytes = g.chance(0.1) ? g.nextInt(5000) : g.nextInt(200);
      double qps = g.chance(0.1) ? g.nextInt(3000) : g.nextInt(100);
      ranges.add(RangeStats.of(d, bytes, qps, g.pick(replicas)));
    }
    return new ClusterSnapshot(nodes, ranges, List.of(), List.of());
  }

  /** The move lands: the replica is replaced; a moved leader hands over to the first other old replica. */
  static ClusterSnapshot land(ClusterSnapshot s, Move m) {
    List<RangeStats> out = new ArrayList<>();
    for (RangeStats r : s.ranges()) {
      if (r.rangeId() != m.rangeId()) {
        out.add(r);
        continue;
      }
      List<String> replicas = new ArrayList<>(r.range().replicas());
      assertThat(replicas).doesNotContain(m.toNode());
      String leader = r.leaderNodeId();
      String from = m.fromNode().orElseThrow();
      assertThat(replicas).contains(from);
      if (leader.equals(from)) {
        leader = replicas.stream().filter(x -> !x.equals(from)).findFirst().orElse(m.toNode());
      }
      replicas.set(replicas.indexOf(from), m.toNode());
      out.add(r.withRange(r.range().withReplicas(replicas, r.range().generation() + 1)).withLeader(leader));
    }
    return s.withRanges(out);
  }

  static ClusterSnapshot landAll(ClusterSnapshot s, List<Pending> pending) {
    for (Pending p : pending) {
      s = land(s, p.move());
    }
    return s;
  }

  static ClusterSnapshot transfer(ClusterSnapshot s, List<LeaderTransfer> transfers) {
    List<RangeStats> out = new ArrayList<>();
    for (RangeStats r : s.ranges()) {
      RangeStats cur = r;
      for (LeaderTransfer t : transfers) {
        if (t.rangeId() == r.rangeId()) {
          assertThat(cur.leaderNodeId()).isEqualTo(t.fromNode());
          assertThat(cur.range().replicas()).contains(t.toNode());
          cur = cur.withLeader(t.toNode());
        }
      }
      out.add(cur);
    }
    return s.withRanges(out);
  }

  /** {deficit, score}, both recomputed from scratch. */
  static double[] potential(ClusterSnapshot s, List<String> live) {
    return new double[] {deficit(s, live), score(s, live)};
  }

  /** Over all ranges: how many more zones each could span with the live nodes' zones (up to its replicas). */
  static int deficit(ClusterSnapshot s, List<String> live) {
    Map<String, String> zones = s.zones();
    int offered = Spread.distinct(live, zones);
    int total = 0;
    for (RangeStats r : s.ranges()) {
      total += Math.min(r.range().replicas().size(), offered) - Spread.distinct(r.range().replicas(), zones);
    }
    return total;
  }

  /** Sum over live nodes and the four load dimensions of the squared relative distance from the mean. */
  static double score(ClusterSnapshot s, List<String> live) {
    Map<String, double[]> load = new HashMap<>();
    live.forEach(n -> load.put(n, new double[4]));
    for (RangeStats r : s.ranges()) {
      for (String n : r.range().replicas()) {
        load.get(n)[0] += 1;
        load.get(n)[1] += r.bytes();
      }
      load.get(r.leaderNodeId())[2] += r.qps();
      load.get(r.leaderNodeId())[3] += 1;
    }
    double total = 0;
    for (int d = 0; d < 4; d++) {
      double mean = 0;
      for (double[] v : load.values()) {
        mean += v[d] / load.size();
      }
      if (mean > 0) {
        for (double[] v : load.values()) {
          total += Math.pow((v[d] - mean) / mean, 2);
        }
      }
    }
    return total;
  }

  @Test
  void scoreOfTheModel_isZeroForAPerfectlyEvenCluster() {
    List<NodeStats> nodes = List.of(new NodeStats("a", "", 0, NOW), new NodeStats("b", "", 0, NOW));
    List<RangeStats> ranges = List.of(
        RangeStats.of(ClusterFixtures.range(1, 0, 10, "a", "b"), 10, 5, "a"),
        RangeStats.of(ClusterFixtures.range(2, 10, -1, "b", "a"), 10, 5, "b"));
    ClusterSnapshot s = new ClusterSnapshot(nodes, ranges, List.of(), List.of());
    assertThat(score(s, List.of("a", "b"))).isZero();
  }
}
