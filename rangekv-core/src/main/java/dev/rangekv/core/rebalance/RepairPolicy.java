package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.cluster.RangeStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Repair (up-replication): a node silent for longer than {@code node.dead-timeout} has its replicas
 * re-created on live nodes, and a range with fewer replicas than {@code min(range.replicas, live
 * nodes)} gets new ones, so every range returns to full replication. Ranges with the fewest live
 * replicas go first. A target is a live node without a replica of the range, preferring a zone the
 * range does not span yet, then the fewest replicas, then the fewest bytes. A range whose live replicas
 * are no majority cannot change its membership through Raft and is reported blocked. A range at its
 * target with a replica on a dead node drops that replica; one above its target (a move that failed
 * after its add) drops a live non-leader replica, one its placement rule forbids first, then one whose
 * loss keeps the range's zones. At most {@code
 * repair.max-moves} repair moves are in flight. Placement rules: a range under a rule aims at the
 * rule's replica count, and its new replicas go only to nodes the rule allows (none allowed: blocked,
 * with the reason). Stateless.
 */
public final class RepairPolicy {
  private RepairPolicy() {}

  public static RepairPlan plan(ClusterSnapshot s, ControllerConfig config, long nowMillis) {
    List<String> live = s.liveNodeIds(nowMillis, config.deadNodeTimeoutMillis());
    Set<String> liveSet = new HashSet<>(live);
    Map<String, String> zoneOf = s.zones();
    Map<String, double[]> load = new HashMap<>(); // replicas, bytes per live node, updated as planned
    live.forEach(n -> load.put(n, new double[2]));
    for (RangeStats r : s.ranges()) {
      for (String n : r.range().replicas()) {
        double[] v = load.get(n);
        if (v != null) {
          v[0]++;
          v[1] += r.bytes();
        }
      }
    }
    long inFlight = s.movesInFlight().stream()
        .filter(m -> m.fromNode().isEmpty() || !liveSet.contains(m.fromNode().get())).count();
    int budget = (int) Math.max(0, config.maxRepairsInFlight() - inFlight);
    Map<String, NodeStats> nodes = s.nodesById();
    Set<Long> moving = s.movingRangeIds();
    List<RangeStats> order = new ArrayList<>(s.ranges());
    order.sort(Comparator.comparingLong(r -> r.range().replicas().stream().filter(liveSet::contains).count()));
    List<Move> moves = new ArrayList<>();
    List<RepairPlan.Removal> removals = new ArrayList<>();
    List<RepairPlan.Blocked> blocked = new ArrayList<>();
    int needing = 0;
    for (RangeStats r : order) {
      Optional<PlacementRule> rule = s.rules().ruleFor(r.range());
      int target = Math.min(rule.map(PlacementRule::replicas).orElse(config.replicationFactor()), live.size());
      List<String> replicas = r.range().replicas();
      List<String> liveReplicas = replicas.stream().filter(liveSet::contains).toList();
      List<String> dead = replicas.stream().filter(n -> !liveSet.contains(n)).toList();
      int needed = target - liveReplicas.size();
      if (moving.contains(r.rangeId())) {
        continue;
      }
      if (needed <= 0) {
        if (!dead.isEmpty() && liveReplicas.size() * 2 <= replicas.size()) {
          blocked.add(new RepairPlan.Blocked(r.rangeId(), Explanation.of("quorum lost: live replicas are no majority")
              .with("liveReplicas", liveReplicas.size()).with("replicas", replicas.size()).build()));
        } else if (budget > 0) {
          Optional<RepairPlan.Removal> removal = surplus(r, liveReplicas, dead, target, zoneOf, load,
              n -> rule.isEmpty() || rule.get().allows(nodes.get(n)));
          if (removal.isPresent()) {
            removals.add(removal.get());
            budget--;
          }
        }
        continue;
      }
      needing++;
      if (!dead.isEmpty() && liveReplicas.size() * 2 <= replicas.size()) {
        blocked.add(new RepairPlan.Blocked(r.rangeId(), Explanation.of("quorum lost: live replicas are no majority")
            .with("liveReplicas", liveReplicas.size()).with("replicas", replicas.size()).build()));
        continue;
      }
      List<String> chosen = new ArrayList<>(liveReplicas);
      for (int j = 0; j < needed && budget > 0; j++) {
        List<String> allowed = rule.isEmpty() ? live
            : live.stream().filter(n -> rule.get().allows(nodes.get(n))).toList();
        Optional<String> to = pick(allowed, replicas, chosen, zoneOf, load);
        if (to.isEmpty()) {
          blocked.add(new RepairPlan.Blocked(r.rangeId(), Explanation.of(rule.isPresent()
                  ? "no live node without a replica that the placement rule allows (" + rule.get().terms() + ")"
                  : "no live node without a replica")
              .with("liveNodes", live.size()).with("allowedLiveNodes", allowed.size())
              .with("replicas", replicas.size()).build()));
          break;
        }
        Explanation why = Explanation.of(j < dead.size() ? "replica on a dead node: re-create it" : "under-replicated: add a replica")
            .with("liveReplicas", liveReplicas.size()).with("targetReplicas", target)
            .with("deadTimeoutMillis", config.deadNodeTimeoutMillis()).build();
        moves.add(j < dead.size() ? Move.of(r.rangeId(), dead.get(j), to.get(), why) : Move.add(r.rangeId(), to.get(), why));
        chosen.add(to.get());
        load.get(to.get())[0]++;
        load.get(to.get())[1] += r.bytes();
        budget--;
      }
    }
    return new RepairPlan(moves, removals, blocked, Explanation.of(needing == 0 ? "fully replicated" : "repairing")
        .with("rangesNeedingRepair", needing).with("moves", moves.size()).with("removals", removals.size())
        .with("blocked", blocked.size())
        .with("liveNodes", live.size()).with("repairsInFlight", inFlight).build());
  }

  /**
   * One replica a range at or above its target can drop: a dead one first (its live replicas are a
   * majority, so the change can commit), else, when over target, a live non-leader: one its rule
   * forbids first, then one whose loss keeps the zones the range spans (a move that added a replica in
   * the same zone as another must not leave the range in fewer zones), then the one on the node with the
   * most replicas.
   */
  private static Optional<RepairPlan.Removal> surplus(RangeStats r, List<String> liveReplicas, List<String> dead,
      int target, Map<String, String> zoneOf, Map<String, double[]> load,
      java.util.function.Predicate<String> allowed) {
    if (!dead.isEmpty()) {
      return Optional.of(new RepairPlan.Removal(r.rangeId(), dead.get(0), Explanation.of(
              "replica on a dead node, live replicas reach the target: drop it")
          .with("liveReplicas", liveReplicas.size()).with("targetReplicas", target).build()));
    }
    if (liveReplicas.size() <= target || r.leaderNodeId().isEmpty()) {
      return Optional.empty(); // without a known leader, any live replica might be it
    }
    String victim = null;
    for (String n : liveReplicas) {
      if (n.equals(r.leaderNodeId())) {
        continue;
      }
      if (victim == null || dropsBefore(n, victim, liveReplicas, zoneOf, load, allowed)) {
        victim = n;
      }
    }
    return Optional.ofNullable(victim).map(n -> new RepairPlan.Removal(r.rangeId(), n, Explanation.of(
            "over-replicated: drop a replica")
        .with("liveReplicas", liveReplicas.size()).with("targetReplicas", target).build()));
  }

  /** Whether over-replicated range's replica on {@code n} should go before the one on {@code victim}. */
  private static boolean dropsBefore(String n, String victim, List<String> replicas, Map<String, String> zoneOf,
      Map<String, double[]> load, java.util.function.Predicate<String> allowed) {
    if (allowed.test(n) != allowed.test(victim)) {
      return !allowed.test(n);
    }
    boolean nKeeps = keepsZones(replicas, n, zoneOf);
    if (nKeeps != keepsZones(replicas, victim, zoneOf)) {
      return nKeeps;
    }
    double c = load.get(n)[0] - load.get(victim)[0];
    return c > 0 || (c == 0 && n.compareTo(victim) > 0);
  }

  private static boolean keepsZones(List<String> replicas, String without, Map<String, String> zoneOf) {
    List<String> rest = new ArrayList<>(replicas);
    rest.remove(without);
    return Zones.distinct(rest, zoneOf) == Zones.distinct(replicas, zoneOf);
  }

  private static Optional<String> pick(List<String> live, List<String> replicas, List<String> chosen,
      Map<String, String> zoneOf, Map<String, double[]> load) {
    int zonesNow = Zones.distinct(chosen, zoneOf);
    String best = null;
    boolean bestNewZone = false;
    for (String n : live) {
      if (replicas.contains(n) || chosen.contains(n)) {
        continue;
      }
      List<String> with = new ArrayList<>(chosen);
      with.add(n);
      boolean newZone = Zones.distinct(with, zoneOf) > zonesNow;
      if (best == null || better(n, newZone, best, bestNewZone, load)) {
        best = n;
        bestNewZone = newZone;
      }
    }
    return Optional.ofNullable(best);
  }

  private static boolean better(String n, boolean newZone, String best, boolean bestNewZone, Map<String, double[]> load) {
    if (newZone != bestNewZone) {
      return newZone;
    }
    int c = Double.compare(load.get(n)[0], load.get(best)[0]);
    if (c == 0) {
      c = Double.compare(load.get(n)[1], load.get(best)[1]);
    }
    return c < 0 || (c == 0 && n.compareTo(best) < 0);
  }
}
