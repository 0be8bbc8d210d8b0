package dev.rangekv.core.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the policies look at in one tick: nodes, the latest stats of each range in key order,
 * the moves still in flight and the recent splits.
 *
 * <p>Ranges need not tile the whole keyspace (a partial view is allowed) but must be in key order and
 * must not overlap; two ranges are neighbours when the first's end is the second's start.
 *
 * @param nodes every known node, live or not, with distinct ids
 * @param ranges one entry per range, sorted by start key, distinct range ids
 * @param movesInFlight moves started and not yet finished; they count against the move budget
 * @param recentSplits splits the controller remembers (at least those younger than the cooldown)
 * @param rules the placement rules in force
 */
public record ClusterSnapshot(List<NodeStats> nodes, List<RangeStats> ranges, List<Move> movesInFlight,
    List<SplitEvent> recentSplits, PlacementRules rules) {

  public ClusterSnapshot {
    java.util.Objects.requireNonNull(rules, "rules");
    nodes = List.copyOf(nodes);
    ranges = List.copyOf(ranges);
    movesInFlight = List.copyOf(movesInFlight);
    recentSplits = List.copyOf(recentSplits);
    Set<String> nodeIds = new HashSet<>();
    for (NodeStats n : nodes) {
      if (!nodeIds.add(n.nodeId())) {
        throw new IllegalArgumentException("duplicate node id " + n.nodeId());
      }
    }
    Set<Long> rangeIds = new HashSet<>();
    for (int i = 0; i < ranges.size(); i++) {
      RangeStats r = ranges.get(i);
      if (!rangeIds.add(r.rangeId())) {
        throw new IllegalArgumentException("duplicate range id " + r.rangeId());
      }
      if (i > 0 && ranges.get(i - 1).range().end().compareTo(r.range().start()) > 0) {
        throw new IllegalArgumentException("ranges out of order or overlapping: " + ranges.get(i - 1).range()
            + " then " + r.range());
      }
    }
  }

  /** A snapshot without placement rules. */
  public ClusterSnapshot(List<NodeStats> nodes, List<RangeStats> ranges, List<Move> movesInFlight,
      List<SplitEvent> recentSplits) {
    this(nodes, ranges, movesInFlight, recentSplits, PlacementRules.EMPTY);
  }

  /** A snapshot with nothing in flight and no split history. */
  public static ClusterSnapshot of(List<NodeStats> nodes, List<RangeStats> ranges) {
    return new ClusterSnapshot(nodes, ranges, List.of(), List.of());
  }

  public Optional<NodeStats> node(String nodeId) {
    return nodes.stream().filter(n -> n.nodeId().equals(nodeId)).findFirst();
  }

  public Optional<RangeStats> range(long rangeId) {
    return ranges.stream().filter(r -> r.rangeId() == rangeId).findFirst();
  }

  /** Ids of the nodes live at {@code nowMillis}, in snapshot order. */
  public List<String> liveNodeIds(long nowMillis, long deadTimeoutMillis) {
    List<String> out = new ArrayList<>();
    for (NodeStats n : nodes) {
      if (n.isLive(nowMillis, deadTimeoutMillis)) {
        out.add(n.nodeId());
      }
    }
    return out;
  }

  /** Zone of each node by id. */
  public Map<String, String> zones() {
    Map<String, String> out = new HashMap<>();
    nodes.forEach(n -> out.put(n.nodeId(), n.zone()));
    return out;
  }

  /** Ids of ranges with a move in flight. */
  public Set<Long> movingRangeIds() {
    Set<Long> out = new HashSet<>();
    movesInFlight.forEach(m -> out.add(m.rangeId()));
    return out;
  }

  /** The most recent split involving {@code rangeId} younger than the cooldown, if any. */
  public Optional<SplitEvent> recentSplit(long rangeId, long nowMillis, long cooldownMillis) {
    SplitEvent best = null;
    for (SplitEvent e : recentSplits) {
      if (e.involves(rangeId) && e.isRecent(nowMillis, cooldownMillis) && (best == null || e.atMillis() > best.atMillis())) {
        best = e;
      }
    }
    return Optional.ofNullable(best);
  }

  public ClusterSnapshot withRanges(List<RangeStats> newRanges) {
    return new ClusterSnapshot(nodes, newRanges, movesInFlight, recentSplits, rules);
  }

  public ClusterSnapshot withMovesInFlight(List<Move> moves) {
    return new ClusterSnapshot(nodes, ranges, moves, recentSplits, rules);
  }

  public ClusterSnapshot withRecentSplits(List<SplitEvent> splits) {
    return new ClusterSnapshot(nodes, ranges, movesInFlight, splits, rules);
  }

  public ClusterSnapshot withRules(PlacementRules newRules) {
    return new ClusterSnapshot(nodes, ranges, movesInFlight, recentSplits, newRules);
  }

  /** Nodes by id. */
  public Map<String, NodeStats> nodesById() {
    Map<String, NodeStats> out = new java.util.LinkedHashMap<>();
    nodes.forEach(n -> out.put(n.nodeId(), n));
    return out;
  }

  public ClusterSnapshot withNodes(List<NodeStats> newNodes) {
    return new ClusterSnapshot(newNodes, ranges, movesInFlight, recentSplits, rules);
  }
}
