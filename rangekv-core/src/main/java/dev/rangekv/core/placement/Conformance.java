package dev.rangekv.core.placement;

import dev.rangekv.core.cluster.PlacementRule;

import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether one range conforms to its placement rule, given the nodes and which are live: every replica
 * on an eligible node, {@code min(rule.replicas, live nodes)} replicas, as many distinct zones as the
 * eligible live nodes offer (up to that count), and the leader in the best preferred zone an eligible
 * live node offers. A range without a rule always conforms. Stateless.
 */
public final class Conformance {
  private Conformance() {}

  /**
   * @param d the range's descriptor
   * @param leader its leader's node id; empty when unknown (the leader check is skipped)
   * @param rule the rule governing it, if any
   * @param nodes every known node by id
   * @param live ids of the live nodes
   */
  public static List<Violation> check(RangeDescriptor d, String leader, PlacementRule rule,
      Map<String, NodeStats> nodes, Set<String> live) {
    List<Violation> out = new ArrayList<>();
    for (String n : d.replicas()) {
      NodeStats node = nodes.get(n);
      if (node == null) {
        out.add(new Violation("forbidden-node", "replica on unknown node " + n));
      } else if (!rule.allows(node)) {
        out.add(new Violation("forbidden-node", "replica on " + n + ": " + rule.refusal(node)));
      }
    }
    int target = Math.min(rule.replicas(), live.size());
    if (d.replicas().size() != target) {
      out.add(new Violation("replica-count", d.replicas().size() + " replicas, the rule wants " + target));
    }
    List<NodeStats> eligibleLive = eligibleLive(rule, nodes, live);
    int offered = Math.min(target, Spread.distinctNodes(eligibleLive));
    Map<String, String> zoneOf = new HashMap<>();
    nodes.values().forEach(n -> zoneOf.put(n.nodeId(), n.zone()));
    int spanned = Spread.distinct(d.replicas(), zoneOf);
    if (spanned < offered) {
      out.add(new Violation("spread", "replicas span " + spanned + " zone(s), eligible live nodes offer " + offered));
    }
    if (!rule.leaderZones().isEmpty() && !leader.isEmpty() && nodes.containsKey(leader)) {
      int best = bestLeaderRank(rule, eligibleLive);
      int rank = rule.leaderRank(nodes.get(leader).zone());
      if (rank > best) {
        out.add(new Violation("leader", "leader " + leader + " in zone " + nodes.get(leader).zone()
            + ", preferred zone " + rule.leaderZones().get(best) + " has an eligible live node"));
      }
    }
    return out;
  }

  /** Eligible live nodes in snapshot order. */
  static List<NodeStats> eligibleLive(PlacementRule rule, Map<String, NodeStats> nodes, Set<String> live) {
    return nodes.values().stream().filter(n -> live.contains(n.nodeId()) && rule.allows(n)).toList();
  }

  /** The best leader rank an eligible live node offers; {@code leaderZones.size()} when none. */
  static int bestLeaderRank(PlacementRule rule, List<NodeStats> eligibleLive) {
    int best = rule.leaderZones().size();
    for (NodeStats n : eligibleLive) {
      best = Math.min(best, rule.leaderRank(n.zone()));
    }
    return best;
  }
}
