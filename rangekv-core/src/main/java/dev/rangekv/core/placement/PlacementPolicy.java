package dev.rangekv.core.placement;

import dev.rangekv.core.cluster.PlacementRule;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.split.SplitDecision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Brings ranges into conformance with their placement rules, one action per range per tick.
 *
 * <p>A range a rule boundary cuts through is split there first. Then, for a range under a rule that
 * breaks it, in this order: a replica on a node the rule forbids moves to an allowed live node (a new
 * zone first); a wrong replica count is left to repair (which aims at the rule's count); replicas
 * crowding a zone while an allowed zone is uncovered move there; the leader moves to the best preferred
 * zone (a transfer when a replica is there, else a follower moves there first). Moves come out of the
 * free move budget (rate-limited as every move) and transfers out of {@code
 * rebalance.max-leader-transfers}. Ranges with a move in flight, a replica on a dead node or in {@code
 * busy} wait. A violation no legal action can fix is reported {@code blocked} with what is missing.
 * Stateless and deterministic.
 */
public final class PlacementPolicy {
  private PlacementPolicy() {}

  /**
   * @param s the snapshot, with its rules
   * @param busy ranges other decisions of this tick touch (repair)
   * @param moveBudget how many moves may start this tick
   */
  public static PlacementPlan plan(ClusterSnapshot s, ControllerConfig config, long nowMillis, Set<Long> busy,
      int moveBudget) {
    if (s.rules().isEmpty()) {
      return PlacementPlan.EMPTY;
    }
    return new Planner(s, config, nowMillis, busy, moveBudget).run();
  }

  /** One call's working state. */
  private static final class Planner {
    final ClusterSnapshot s;
    final Set<Long> busy;
    final Set<String> live;
    final Map<String, NodeStats> nodes;
    final Map<String, String> zoneOf;
    final Map<String, int[]> replicaCount = new HashMap<>();
    final Set<Long> moving;
    int moveBudget;
    int transferBudget;
    final List<SplitDecision.Split> splits = new ArrayList<>();
    final List<Move> moves = new ArrayList<>();
    final List<LeaderTransfer> transfers = new ArrayList<>();
    final List<PlacementPlan.Report> reports = new ArrayList<>();

    Planner(ClusterSnapshot s, ControllerConfig config, long now, Set<Long> busy, int moveBudget) {
      this.s = s;
      this.busy = busy;
      this.live = new HashSet<>(s.liveNodeIds(now, config.deadNodeTimeoutMillis()));
      this.nodes = s.nodesById();
      this.zoneOf = s.zones();
      this.moving = s.movingRangeIds();
      this.moveBudget = Math.max(0, moveBudget);
      this.transferBudget = config.maxLeaderTransfers();
      live.forEach(n -> replicaCount.put(n, new int[1]));
      for (RangeStats r : s.ranges()) {
        r.range().replicas().forEach(n -> {
          int[] c = replicaCount.get(n);
          if (c != null) {
            c[0]++;
          }
        });
      }
    }

    PlacementPlan run() {
      for (RangeStats r : s.ranges()) {
        RangeDescriptor d = r.range();
        Optional<Key> boundary = s.rules().boundaryInside(d);
        if (boundary.isPresent()) {
          Explanation why = Explanation.of("placement rule boundary inside the range: split there so each side"
              + " follows its own rule").build();
          splits.add(new SplitDecision.Split(d.rangeId(), d.generation(), boundary.get(), SplitCause.PLACEMENT, why));
          reports.add(new PlacementPlan.Report(d.rangeId(), "boundary at " + boundary.get(), List.of(), "splitting", why));
          continue;
        }
        Optional<PlacementRule> rule = s.rules().ruleFor(d);
        if (rule.isPresent()) {
          evaluate(r, rule.get());
        }
      }
      return new PlacementPlan(splits, moves, transfers, reports);
    }

    private void evaluate(RangeStats r, PlacementRule rule) {
      RangeDescriptor d = r.range();
      int covering = s.rules().coveringCount(d);
      String ruleText = rule + (covering > 1 ? " (most specific of " + covering + " covering rules)" : "");
      List<Violation> violations = Conformance.check(d, r.leaderNodeId(), rule, nodes, live);
      if (violations.isEmpty()) {
        report(d, ruleText, violations, "conforming", Explanation.of("replicas conform to the placement rule")
            .with("replicas", d.replicas().size()).build());
        return;
      }
      boolean deadReplica = !live.containsAll(d.replicas());
      if (busy.contains(d.rangeId()) || moving.contains(d.rangeId()) || deadReplica) {
        report(d, ruleText, violations, "waiting", Explanation.of(deadReplica
            ? "a replica is on a dead node: repair goes first" : "a move or repair of the range is under way").build());
        return;
      }
      Violation first = violations.get(0);
      switch (first.kind()) {
        case "forbidden-node" -> fixForbidden(r, rule, ruleText, violations);
        case "replica-count" -> report(d, ruleText, violations, "waiting",
            Explanation.of("repair adjusts the replica count to the rule's").with("replicas", d.replicas().size())
                .with("ruleReplicas", rule.replicas()).with("liveNodes", live.size()).build());
        case "spread" -> fixSpread(r, rule, ruleText, violations);
        default -> fixLeader(r, rule, ruleText, violations);
      }
    }

    private void fixForbidden(RangeStats r, PlacementRule rule, String ruleText, List<Violation> violations) {
      RangeDescriptor d = r.range();
      String from = null;
      for (String n : d.replicas()) {
        if (!rule.allows(nodes.get(n)) && (from == null || from.equals(r.leaderNodeId()))) {
          from = n; // a follower first: moving the leader costs a leadership transfer
        }
      }
      List<String> rest = new ArrayList<>(d.replicas());
      rest.remove(from);
      Optional<String> to = target(d, rule, rest, false);
      tryMove(r, ruleText, violations, from, to, Explanation.of("placement: replica on a node the rule forbids"
          + " moves to an allowed node").with("allowedLiveNodes", allowedLive(rule).size()).build(), rule);
    }

    private void fixSpread(RangeStats r, PlacementRule rule, String ruleText, List<Violation> violations) {
      RangeDescriptor d = r.range();
      Map<String, Integer> perDomain = new HashMap<>();
      d.replicas().forEach(n -> perDomain.merge(domain(n), 1, Integer::sum));
      String from = null;
      for (String n : d.replicas()) {
        if (perDomain.get(domain(n)) > 1 && (from == null || from.equals(r.leaderNodeId()))) {
          from = n;
        }
      }
      List<String> rest = new ArrayList<>(d.replicas());
      rest.remove(from);
      Optional<String> to = from == null ? Optional.empty() : target(d, rule, rest, true);
      tryMove(r, ruleText, violations, from, to, Explanation.of("placement: replicas crowd a zone while an allowed"
          + " zone is uncovered").with("zones", spread(d.replicas())).build(), rule);
    }

    private void fixLeader(RangeStats r, PlacementRule rule, String ruleText, List<Violation> violations) {
      RangeDescriptor d = r.range();
      int best = Conformance.bestLeaderRank(rule, allowedLive(rule));
      String leader = r.leaderNodeId();
      for (String n : d.replicas()) {
        if (rule.leaderRank(zoneOf.getOrDefault(n, "")) == best) {
          if (transferBudget == 0) {
            report(d, ruleText, violations, "waiting", Explanation.of("leader-transfer budget used this tick").build());
            return;
          }
          transferBudget--;
          Explanation why = Explanation.of("placement: leadership to the preferred zone " + rule.leaderZones().get(best))
              .with("fromRank", rule.leaderRank(zoneOf.getOrDefault(leader, ""))).with("toRank", best).build();
          transfers.add(new LeaderTransfer(d.rangeId(), leader, n, why));
          report(d, ruleText, violations, "fixing", why);
          return;
        }
      }
      // No replica in the best zone yet: move a follower there (the only replica when it is alone).
      String from = null;
      for (String n : d.replicas()) {
        if (!n.equals(leader) || d.replicas().size() == 1) {
          if (from == null || rule.leaderRank(zoneOf.getOrDefault(n, "")) > rule.leaderRank(zoneOf.getOrDefault(from, ""))) {
            from = n;
          }
        }
      }
      String fromNode = from;
      int spreadNow = spread(d.replicas());
      Optional<String> to = allowedLive(rule).stream()
          .filter(n -> !d.replicas().contains(n.nodeId()) && rule.leaderRank(n.zone()) == best)
          .map(NodeStats::nodeId)
          .filter(n -> {
            List<String> after = new ArrayList<>(d.replicas());
            after.set(after.indexOf(fromNode), n);
            return spread(after) >= spreadNow;
          })
          .min((a, b) -> replicaCount.get(a)[0] != replicaCount.get(b)[0]
              ? Integer.compare(replicaCount.get(a)[0], replicaCount.get(b)[0]) : a.compareTo(b));
      tryMove(r, ruleText, violations, from, to, Explanation.of("placement: a replica moves into the preferred"
          + " leader zone " + rule.leaderZones().get(best)).build(), rule);
    }

    /** Plans the move when there is a target and budget; reports either way. */
    private void tryMove(RangeStats r, String ruleText, List<Violation> violations, String from, Optional<String> to,
        Explanation why, PlacementRule rule) {
      RangeDescriptor d = r.range();
      if (from == null || to.isEmpty()) {
        report(d, ruleText, violations, "blocked", Explanation.of("no legal fix now: no live node the rule allows"
                + " (" + rule.terms() + ") can take a replica without breaking the rule")
            .with("liveNodes", live.size()).with("allowedLiveNodes", allowedLive(rule).size())
            .with("replicas", d.replicas().size()).build());
        return;
      }
      if (moveBudget == 0) {
        report(d, ruleText, violations, "waiting", Explanation.of("move budget used (moves in flight or planned)")
            .build());
        return;
      }
      moveBudget--;
      replicaCount.get(to.get())[0]++;
      Move m = Move.of(d.rangeId(), from, to.get(), why);
      moves.add(m);
      report(d, ruleText, violations, "fixing", why);
    }

    /**
     * An allowed live node without a replica to join {@code rest}: in a failure domain {@code rest} does
     * not cover first (required when {@code newDomain}), then in a better leader zone, then the fewest
     * replicas, then the smallest id.
     */
    private Optional<String> target(RangeDescriptor d, PlacementRule rule, List<String> rest, boolean newDomain) {
      Set<String> covered = new HashSet<>();
      rest.forEach(n -> covered.add(domain(n)));
      String best = null;
      for (NodeStats n : allowedLive(rule)) {
        String id = n.nodeId();
        if (d.replicas().contains(id) || (newDomain && covered.contains(domain(id)))) {
          continue;
        }
        if (best == null || better(id, best, covered, rule)) {
          best = id;
        }
      }
      return Optional.ofNullable(best);
    }

    private boolean better(String a, String b, Set<String> covered, PlacementRule rule) {
      boolean na = !covered.contains(domain(a));
      boolean nb = !covered.contains(domain(b));
      if (na != nb) {
        return na;
      }
      int ra = rule.leaderRank(zoneOf.getOrDefault(a, ""));
      int rb = rule.leaderRank(zoneOf.getOrDefault(b, ""));
      if (ra != rb) {
        return ra < rb;
      }
      int ca = replicaCount.get(a)[0];
      int cb = replicaCount.get(b)[0];
      return ca != cb ? ca < cb : a.compareTo(b) < 0;
    }

    private List<NodeStats> allowedLive(PlacementRule rule) {
      return Conformance.eligibleLive(rule, nodes, live);
    }

    private String domain(String nodeId) {
      return Spread.domain(nodeId, zoneOf.getOrDefault(nodeId, ""));
    }

    private int spread(List<String> replicas) {
      return Spread.distinct(replicas, zoneOf);
    }

    private void report(RangeDescriptor d, String rule, List<Violation> violations, String state, Explanation why) {
      reports.add(new PlacementPlan.Report(d.rangeId(), rule, violations, state, why));
    }
  }
}
