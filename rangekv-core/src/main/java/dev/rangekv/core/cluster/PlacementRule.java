package dev.rangekv.core.cluster;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Where the replicas of the keys in {@code [start, end)} may live and lead.
 *
 * <p>A node is <em>eligible</em> when it satisfies every constraint and, when {@code zones} is not
 * empty, lies in one of them. A conforming range keeps {@code replicas} replicas (fewer only when fewer
 * nodes are live), all on eligible nodes, spread over as many distinct zones as the eligible live nodes
 * offer, led from the best-ranked zone of {@code leaderZones} that has an eligible live node.
 *
 * @param start first key covered
 * @param end exclusive end, {@link RangeEnd#INFINITY} for "to the end of the keyspace"
 * @param replicas 1, 3 or 5
 * @param constraints required and forbidden labels; no label both required and forbidden
 * @param zones zones the replicas must be in and spread over; empty = any zone
 * @param leaderZones preferred leader zones, best first; within {@code zones} when that is set
 * @param version the rule set version that stored it (0 before it is stored)
 */
public record PlacementRule(Key start, RangeEnd end, int replicas, List<LabelConstraint> constraints,
    List<String> zones, List<String> leaderZones, long version) {

  public PlacementRule {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    constraints = List.copyOf(constraints);
    zones = List.copyOf(zones);
    leaderZones = List.copyOf(leaderZones);
    if (!end.isAbove(start)) {
      throw new InvalidRuleException("empty span: start=" + start + " end=" + end);
    }
    if (replicas != 1 && replicas != 3 && replicas != 5) {
      throw new InvalidRuleException("replicas must be 1, 3 or 5, got " + replicas);
    }
    if (new HashSet<>(zones).size() != zones.size() || new HashSet<>(leaderZones).size() != leaderZones.size()) {
      throw new InvalidRuleException("a zone is listed twice");
    }
    for (String z : zones) {
      LabelConstraint.parse("+" + NodeStats.ZONE_LABEL + "=" + z); // same syntax as a label value
    }
    if (!zones.isEmpty() && !zones.containsAll(leaderZones)) {
      throw new InvalidRuleException("leader zones " + leaderZones + " must be among the replica zones " + zones);
    }
    Set<String> seen = new HashSet<>();
    for (LabelConstraint c : constraints) {
      if (!seen.add(c.key() + "=" + c.value())) {
        throw new InvalidRuleException("constraint on " + c.key() + "=" + c.value() + " given twice or contradicting");
      }
    }
    if (version < 0) {
      throw new InvalidRuleException("negative version " + version);
    }
  }

  /** The rule for every key starting with {@code prefix} (the tenant idiom: {@code tenant/42/}). */
  public static PlacementRule forPrefix(Key prefix, int replicas, List<LabelConstraint> constraints,
      List<String> zones, List<String> leaderZones) {
    return new PlacementRule(prefix, prefix.prefixEnd(), replicas, constraints, zones, leaderZones, 0);
  }

  public PlacementRule withVersion(long v) {
    return new PlacementRule(start, end, replicas, constraints, zones, leaderZones, v);
  }

  /** True when the rule covers the same span as {@code other}. */
  public boolean sameSpan(PlacementRule other) {
    return start.equals(other.start) && end.equals(other.end);
  }

  /** True when every key of {@code d} lies inside this rule's span. */
  public boolean covers(RangeDescriptor d) {
    return start.compareTo(d.start()) <= 0 && end.compareTo(d.end()) >= 0;
  }

  /** True when a replica of a range under this rule may live on {@code node}. */
  public boolean allows(NodeStats node) {
    if (!zones.isEmpty() && !zones.contains(node.zone())) {
      return false;
    }
    var labels = node.allLabels();
    for (LabelConstraint c : constraints) {
      if (!c.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  /** Why {@code node} is not eligible, e.g. {@code "zone us-1 not in [eu-1]"}; empty when it is. */
  public String refusal(NodeStats node) {
    List<String> out = new ArrayList<>();
    if (!zones.isEmpty() && !zones.contains(node.zone())) {
      out.add("zone " + (node.zone().isEmpty() ? "(none)" : node.zone()) + " not in " + zones);
    }
    var labels = node.allLabels();
    for (LabelConstraint c : constraints) {
      if (!c.matches(labels)) {
        out.add("fails " + c);
      }
    }
    return String.join(", ", out);
  }

  /** Position of {@code zone} in the leader preferences; {@code leaderZones.size()} when not listed. */
  public int leaderRank(String zone) {
    int i = leaderZones.indexOf(zone);
    return i < 0 ? leaderZones.size() : i;
  }

  /** Renders the rule's terms (not its span): {@code replicas=3 zones=[eu-1] +disk=ssd leaders=[eu-1]}. */
  public String terms() {
    StringBuilder sb = new StringBuilder("replicas=").append(replicas);
    if (!zones.isEmpty()) {
      sb.append(" zones=").append(String.join(",", zones));
    }
    constraints.forEach(c -> sb.append(' ').append(c));
    if (!leaderZones.isEmpty()) {
      sb.append(" leaders=").append(String.join(",", leaderZones));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ") " + terms() + (version > 0 ? " v" + version : "");
  }
}
