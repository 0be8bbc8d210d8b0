package dev.rangekv.core.placement;

import dev.rangekv.core.cluster.PlacementRule;

import dev.rangekv.core.cluster.NodeStats;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The verdict on a rule being set, against the nodes the cluster knows: refused when no known node,
 * live or dead, could ever hold a replica under it (the rule would only strand data); accepted with a
 * warning when the live nodes cannot meet it now but it can be met later (eligible nodes are dead, or
 * too few, or a listed zone has none yet: ranges keep their replicas where they are meanwhile and
 * {@code why} says what is missing); accepted otherwise.
 *
 * @param verdict the outcome
 * @param reason one line for people; empty when plainly accepted
 */
public record RuleCheck(Verdict verdict, String reason) {
  /** The outcomes. */
  public enum Verdict { ACCEPTED, WARNING, REFUSED }

  public RuleCheck {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
  }

  public boolean refused() {
    return verdict == Verdict.REFUSED;
  }

  /**
   * @param rule the rule to set
   * @param known every registered node, live or not
   * @param live ids of the live nodes
   */
  public static RuleCheck of(PlacementRule rule, List<NodeStats> known, Set<String> live) {
    List<NodeStats> eligible = known.stream().filter(rule::allows).toList();
    if (eligible.isEmpty()) {
      Set<String> zones = new TreeSet<>();
      known.forEach(n -> zones.add(n.zone().isEmpty() ? "(none)" : n.zone()));
      return new RuleCheck(Verdict.REFUSED, "no node in the cluster satisfies " + rule.terms() + " (zones known: "
          + zones + ")");
    }
    List<NodeStats> eligibleLive = eligible.stream().filter(n -> live.contains(n.nodeId())).toList();
    int wanted = Math.min(rule.replicas(), live.size());
    if (eligibleLive.size() < wanted) {
      return new RuleCheck(Verdict.WARNING, "only " + eligibleLive.size() + " live node(s) satisfy " + rule.terms()
          + " (" + eligible.size() + " known): ranges stay out of conformance until enough are live");
    }
    Set<String> liveZones = new TreeSet<>();
    eligibleLive.forEach(n -> liveZones.add(n.zone()));
    for (String z : rule.zones()) {
      if (!liveZones.contains(z)) {
        return new RuleCheck(Verdict.WARNING, "zone " + z + " has no live eligible node yet: replicas spread over "
            + liveZones + " until it has");
      }
    }
    for (String z : rule.leaderZones()) {
      if (!liveZones.contains(z)) {
        return new RuleCheck(Verdict.WARNING, "leader zone " + z + " has no live eligible node: leaders go to the next"
            + " preferred zone meanwhile");
      }
    }
    return new RuleCheck(Verdict.ACCEPTED, "");
  }
}
