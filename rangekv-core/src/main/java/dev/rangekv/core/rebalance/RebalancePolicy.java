package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.SplitEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Rebalancing: keeps replica counts, bytes, leader QPS and leaderships of the live nodes within {@code
 * rebalance.tolerance} of the mean, with at most {@code rebalance.max-moves} moves in flight.
 *
 * <p>First, the follow-up of a recent load or append split whose halves still share their nodes: one
 * half (the hotter one; for an append split the new tail) moves to the least loaded node, since a split
 * only helps once its halves live apart (seed 000). Then a range without a placement rule whose
 * replicas share a zone while a live node offers an uncovered one moves a follower there (after a
 * repair that ran while that zone was down). Then, while some node is out of tolerance, the single
 * move or leadership transfer touching such a node that lowers the load score most (see {@link
 * ClusterLoad}) is planned, until the budget runs out. The score counts moves in flight as landed (so
 * a slow move is not planned twice and then undone), and a range with several replicas moves only
 * followers (its leadership moves by transfer): the planner's model of the result is then exact, and
 * a cluster whose load does not change reaches a fixed point. A balancing action must also gain at least
 * {@code rebalance.min-gain} of its own weight, so an action that would only swap which node is the busier
 * one is not taken, and the measurement noise of a tick cannot undo the last tick's action (hysteresis;
 * see {@link ClusterLoad}). A balancing transfer also waits out the range's leadership cool-down and never
 * hands leadership back to a recent leader ({@link LeaderHistory}). Balancing starts only when some node
 * is out of tolerance by a margin ({@link #TRIGGER_MARGIN}), then brings nodes within the plain band.
 * Rules every action obeys: a range's replicas
 * stay on distinct nodes, never span fewer zones than before, never go to a dead node or one whose
 * store would pass 95% of its capacity; ranges with a move in flight, a replica on a dead node, or in
 * {@code busy} are left alone; each range is touched at most once per tick. Under a placement rule, a
 * replica only goes to a node the rule allows and leadership never moves to a less preferred zone.
 * Stateless.
 */
public final class RebalancePolicy {
  private static final double EPSILON = 1e-9;
  /** How far past the tolerance band a node must be before balancing starts (see ClusterLoad#outOfTolerance). */
  static final double TRIGGER_MARGIN = 0.5;

  private RebalancePolicy() {}

  public static RebalancePlan plan(ClusterSnapshot s, ControllerConfig config, long nowMillis) {
    return plan(s, config, nowMillis, Set.of());
  }

  /** Plans this tick's moves and transfers; ranges in {@code busy} (being split or merged) are skipped. */
  public static RebalancePlan plan(ClusterSnapshot s, ControllerConfig config, long nowMillis, Set<Long> busy) {
    return plan(s, config, nowMillis, busy, LeaderHistory.EMPTY);
  }

  /**
   * As {@link #plan(ClusterSnapshot, ControllerConfig, long, Set)}, transferring no leadership that
   * {@code leaders} forbids (a range in its cool-down, or back to a recent leader).
   */
  public static RebalancePlan plan(ClusterSnapshot s, ControllerConfig config, long nowMillis, Set<Long> busy,
      LeaderHistory leaders) {
    List<String> live = s.liveNodeIds(nowMillis, config.deadNodeTimeoutMillis());
    if (live.size() < 2) {
      return new RebalancePlan(List.of(), List.of(),
          Explanation.of("fewer than two live nodes").with("liveNodes", live.size()).build());
    }
    Planner p = new Planner(s, config, live, busy, leaders, nowMillis);
    p.splitFollowUps(nowMillis);
    p.spreadZones();
    p.greedy();
    return new RebalancePlan(p.moves, p.transfers, p.summary());
  }

  /** One planning call's mutable state. */
  private static final class Planner {
    final ClusterSnapshot s;
    final ControllerConfig config;
    final List<String> live;
    final Set<String> liveSet;
    final Map<String, String> zoneOf;
    final Map<String, Long> capacity = new HashMap<>();
    final Map<String, NodeStats> nodes;
    final Map<Long, Optional<PlacementRule>> rules = new HashMap<>();
    final ClusterLoad load;
    final Map<Long, RangeStats> eligible = new HashMap<>();
    final List<RangeStats> eligibleOrder = new ArrayList<>();
    final Set<Long> touched = new HashSet<>();
    final List<Move> moves = new ArrayList<>();
    final List<LeaderTransfer> transfers = new ArrayList<>();
    final double initialScore;
    final LeaderHistory leaders;
    final long nowMillis;
    int moveBudget;
    int transferBudget;

    Planner(ClusterSnapshot s, ControllerConfig config, List<String> live, Set<Long> busy, LeaderHistory leaders,
        long nowMillis) {
      this.s = s;
      this.leaders = leaders;
      this.nowMillis = nowMillis;
      this.config = config;
      this.live = live;
      this.liveSet = new HashSet<>(live);
      this.zoneOf = s.zones();
      this.nodes = s.nodesById();
      for (NodeStats n : s.nodes()) {
        capacity.put(n.nodeId(), n.capacityBytes());
      }
      this.load = new ClusterLoad(live, s.ranges(), s.movesInFlight());
      this.initialScore = load.score();
      Set<Long> moving = s.movingRangeIds();
      for (RangeStats r : s.ranges()) {
        if (!busy.contains(r.rangeId()) && !moving.contains(r.rangeId()) && liveSet.containsAll(r.range().replicas())) {
          eligible.put(r.rangeId(), r);
          eligibleOrder.add(r);
        }
      }
      this.moveBudget = Math.max(0, config.maxMovesInFlight() - s.movesInFlight().size());
      this.transferBudget = config.maxLeaderTransfers();
    }

    void splitFollowUps(long now) {
      List<SplitEvent> events = new ArrayList<>(s.recentSplits());
      events.sort(Comparator.comparingLong(SplitEvent::atMillis).reversed());
      for (SplitEvent e : events) {
        if (moveBudget == 0) {
          return;
        }
        if ((e.cause() != SplitCause.LOAD && e.cause() != SplitCause.APPEND)
            || !e.isRecent(now, config.splitCooldownMillis())) {
          continue;
        }
        RangeStats left = eligible.get(e.leftRangeId());
        RangeStats right = eligible.get(e.rightRangeId());
        if (left == null || right == null || touched.contains(left.rangeId()) || touched.contains(right.rangeId())
            || !new HashSet<>(left.range().replicas()).equals(new HashSet<>(right.range().replicas()))
            || left.leaderNodeId().isEmpty() || !left.leaderNodeId().equals(right.leaderNodeId())) {
          continue;
        }
        RangeStats half = e.cause() == SplitCause.APPEND || right.qps() >= left.qps() ? right : left;
        String from = half.leaderNodeId();
        String target = null;
        for (String b : live) {
          if (allowed(half, from, b) && (target == null || betterTarget(b, target))) {
            target = b;
          }
        }
        if (target == null || load.value(target, ClusterLoad.QPS) >= load.value(from, ClusterLoad.QPS)) {
          continue;
        }
        double[] delta = delta(half, from);
        Explanation why = Explanation.of(e.cause() == SplitCause.APPEND
                ? "append split: move the new tail to the least loaded node before it gets hot"
                : "load split: move the hotter half away from its sibling")
            .with("halfQps", half.qps()).with("fromQps", load.value(from, ClusterLoad.QPS))
            .with("toQps", load.value(target, ClusterLoad.QPS)).with("meanQps", load.mean(ClusterLoad.QPS)).build();
        record(half, from, target, delta, why);
        touched.add(left.rangeId());
        touched.add(right.rangeId());
      }
    }

    /**
     * Ranges without a placement rule whose replicas share a zone while a live node offers a zone they do
     * not cover (a repair that ran while that zone was down) move a follower from the crowded zone there,
     * to the target that lowers the load score most. Ranges under a rule are the placement policy's.
     */
    void spreadZones() {
      int offered = Zones.distinct(live, zoneOf);
      for (RangeStats r : eligibleOrder) {
        if (moveBudget == 0) {
          return;
        }
        List<String> replicas = r.range().replicas();
        int spanned = Zones.distinct(replicas, zoneOf);
        if (touched.contains(r.rangeId()) || rule(r).isPresent() || spanned >= Math.min(replicas.size(), offered)) {
          continue;
        }
        String bestFrom = null;
        String bestTo = null;
        double bestDelta = Double.MAX_VALUE;
        for (String a : replicas) {
          if ((replicas.size() > 1 && a.equals(r.leaderNodeId())) || !sharesZone(a, replicas)) {
            continue;
          }
          for (String b : live) {
            if (allowed(r, a, b) && gainsZone(replicas, a, b)) {
              double d = load.scoreDelta(a, b, delta(r, a));
              if (d < bestDelta - EPSILON || (Math.abs(d - bestDelta) <= EPSILON && b.compareTo(bestTo) < 0)) {
                bestDelta = d;
                bestFrom = a;
                bestTo = b;
              }
            }
          }
        }
        if (bestFrom != null) {
          record(r, bestFrom, bestTo, delta(r, bestFrom), Explanation.of(
                  "rebalance: replicas share a zone while a live node offers one they do not cover")
              .with("zones", spanned).with("zonesOffered", Math.min(replicas.size(), offered)).build());
          touched.add(r.rangeId());
        }
      }
    }

    private boolean sharesZone(String a, List<String> replicas) {
      String zone = zoneOf.getOrDefault(a, "");
      return !zone.isEmpty() && replicas.stream().filter(n -> zone.equals(zoneOf.getOrDefault(n, ""))).count() > 1;
    }

    private boolean gainsZone(List<String> replicas, String a, String b) {
      List<String> after = new ArrayList<>(replicas);
      after.set(after.indexOf(a), b);
      return Zones.distinct(after, zoneOf) > Zones.distinct(replicas, zoneOf);
    }

    private boolean betterTarget(String b, String current) {
      int c = Double.compare(load.value(b, ClusterLoad.QPS), load.value(current, ClusterLoad.QPS));
      if (c == 0) {
        c = Double.compare(load.value(b, ClusterLoad.REPLICAS), load.value(current, ClusterLoad.REPLICAS));
      }
      return c < 0 || (c == 0 && b.compareTo(current) < 0);
    }

    void greedy() {
      if (load.outOfTolerance(config.balanceTolerance(), TRIGGER_MARGIN).isEmpty()) {
        return; // within the band, or out of it by less than the margin: not worth a move or a transfer
      }
      while (moveBudget > 0 || transferBudget > 0) {
        Set<String> off = new HashSet<>();
        for (String label : load.outOfTolerance(config.balanceTolerance())) {
          off.add(label.substring(0, label.lastIndexOf(':')));
        }
        if (off.isEmpty()) {
          return;
        }
        RangeStats bestRange = null;
        String bestFrom = null;
        String bestTo = null;
        boolean bestIsMove = false;
        double bestDelta = -EPSILON;
        for (RangeStats r : eligibleOrder) {
          if (touched.contains(r.rangeId())) {
            continue;
          }
          List<String> replicas = r.range().replicas();
          if (moveBudget > 0) {
            for (String a : replicas) {
              if (replicas.size() > 1 && a.equals(r.leaderNodeId())) {
                continue; // leaders move by transfer: the mover picks the heir, this model would not know it
              }
              for (String b : live) {
                if ((off.contains(a) || off.contains(b)) && allowed(r, a, b)) {
                  double[] moved = delta(r, a);
                  double d = load.scoreDelta(a, b, moved);
                  if (d < bestDelta && worthIt(d, moved)) {
                    bestDelta = d;
                    bestRange = r;
                    bestFrom = a;
                    bestTo = b;
                    bestIsMove = true;
                  }
                }
              }
            }
          }
          String leader = r.leaderNodeId();
          if (transferBudget > 0 && !leader.isEmpty()) {
            for (String c : replicas) {
              if (!c.equals(leader) && (off.contains(leader) || off.contains(c)) && leaderMayGo(r, leader, c)
                  && leaders.mayTransfer(r.rangeId(), c, nowMillis)) {
                double[] moved = leaderDelta(r);
                double d = load.scoreDelta(leader, c, moved);
                if (d < bestDelta && worthIt(d, moved)) {
                  bestDelta = d;
                  bestRange = r;
                  bestFrom = leader;
                  bestTo = c;
                  bestIsMove = false;
                }
              }
            }
          }
        }
        if (bestRange == null) {
          return;
        }
        double before = load.score();
        if (bestIsMove) {
          record(bestRange, bestFrom, bestTo, delta(bestRange, bestFrom), explain("rebalance: move a replica off",
              bestFrom, bestTo, before, before + bestDelta));
        } else {
          double[] d = leaderDelta(bestRange);
          load.apply(bestFrom, bestTo, d);
          transfers.add(new LeaderTransfer(bestRange.rangeId(), bestFrom, bestTo,
              explain("rebalance: transfer leadership off", bestFrom, bestTo, before, before + bestDelta)));
          transferBudget--;
        }
        touched.add(bestRange.rangeId());
      }
    }

    /** The action lowers the score by at least {@code rebalance.min-gain} of its weight (hysteresis). */
    private boolean worthIt(double scoreDelta, double[] delta) {
      return -scoreDelta >= config.balanceMinGain() * load.weight(delta) + EPSILON;
    }

    private Explanation explain(String reason, String from, String to, double before, double after) {
      Explanation.Builder b = Explanation.of(reason + " an out-of-tolerance node");
      for (int d = 0; d < 4; d++) {
        b.with("from" + cap(ClusterLoad.NAMES[d]), load.value(from, d))
            .with("to" + cap(ClusterLoad.NAMES[d]), load.value(to, d))
            .with("mean" + cap(ClusterLoad.NAMES[d]), load.mean(d));
      }
      return b.with("scoreBefore", before).with("scoreAfter", after).build();
    }

    private static String cap(String s) {
      return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** Moving r's replica from a to b: legal placement and room on b. */
    private boolean allowed(RangeStats r, String a, String b) {
      List<String> replicas = r.range().replicas();
      if (!liveSet.contains(b) || replicas.contains(b)) {
        return false;
      }
      long cap = capacity.getOrDefault(b, 0L);
      if (cap > 0 && load.value(b, ClusterLoad.BYTES) + r.bytes() > 0.95 * cap) {
        return false;
      }
      Optional<PlacementRule> rule = rule(r);
      if (rule.isPresent() && (!rule.get().allows(nodes.get(b))
          || (r.leaderNodeId().equals(a) && !leaderMayGo(r, a, b)))) {
        return false;
      }
      List<String> after = new ArrayList<>(replicas);
      after.set(after.indexOf(a), b);
      return Zones.distinct(after, zoneOf) >= Zones.distinct(replicas, zoneOf);
    }

    private Optional<PlacementRule> rule(RangeStats r) {
      return rules.computeIfAbsent(r.rangeId(), id -> s.rules().ruleFor(r.range()));
    }

    /** Leadership of r may pass from {@code a} to {@code b}: not to a zone its rule prefers less. */
    private boolean leaderMayGo(RangeStats r, String a, String b) {
      Optional<PlacementRule> rule = rule(r);
      return rule.isEmpty() || rule.get().leaderRank(zoneOf.getOrDefault(b, ""))
          <= rule.get().leaderRank(zoneOf.getOrDefault(a, ""));
    }

    /** Load that leaves {@code a} when its replica of {@code r} moves; leadership goes along if it leads. */
    private static double[] delta(RangeStats r, String a) {
      boolean leads = r.leaderNodeId().equals(a);
      return new double[] {1, r.bytes(), leads ? r.qps() : 0, leads ? 1 : 0};
    }

    private static double[] leaderDelta(RangeStats r) {
      return new double[] {0, 0, r.qps(), 1};
    }

    private void record(RangeStats r, String from, String to, double[] delta, Explanation why) {
      load.apply(from, to, delta);
      moves.add(Move.of(r.rangeId(), from, to, why));
      moveBudget--;
    }

    Explanation summary() {
      List<String> off = load.outOfTolerance(config.balanceTolerance());
      String reason = off.isEmpty() ? "balanced within tolerance"
          : moves.isEmpty() && transfers.isEmpty()
              && load.outOfTolerance(config.balanceTolerance(), TRIGGER_MARGIN).isEmpty()
              ? "out of tolerance by less than the margin that starts balancing"
          : moveBudget == 0 ? "out of tolerance; move budget used (moves in flight or planned)"
          : "out of tolerance; no legal action lowers the imbalance by rebalance.min-gain of what it moves";
      return Explanation.of(reason).with("moves", moves.size()).with("leaderTransfers", transfers.size())
          .with("movesInFlight", s.movesInFlight().size()).with("maxMoves", config.maxMovesInFlight())
          .with("outOfTolerance", off.size()).with("scoreBefore", initialScore).with("scoreAfter", load.score())
          .build();
    }
  }
}
