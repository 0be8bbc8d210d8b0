package dev.rangekv.core.split;

import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Plans a pre-split (seed 002 "Pre-Splitting for Known Access Patterns"): split points, either uniform
 * over the 8-byte keyspace ({@link KeyCodec#uniformSplitPoints}) or given, plus a scatter placement.
 *
 * <p>Scatter: nodes are ordered round-robin across zones (one node of each zone, then the next of
 * each...), and range {@code i} takes {@code replicas} consecutive nodes of that ring starting at
 * {@code i}. So each node holds the same number of replicas (within one), leads the same number of
 * ranges (within one), and with at least {@code replicas} evenly sized zones one range's replicas sit
 * in distinct zones.
 */
public final class PreSplitPlanner {
  private PreSplitPlanner() {}

  /** {@code ranges} ranges cut uniformly over the 8-byte big-endian keyspace. */
  public static PreSplitPlan uniform(int ranges, List<NodeStats> nodes, int replicationFactor) {
    return atKeys(KeyCodec.uniformSplitPoints(ranges), nodes, replicationFactor);
  }

  /** Ranges cut at {@code splitPoints} (sorted and deduplicated here; the empty key is dropped). */
  public static PreSplitPlan atKeys(List<Key> splitPoints, List<NodeStats> nodes, int replicationFactor) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("no nodes to place ranges on");
    }
    if (replicationFactor < 1) {
      throw new IllegalArgumentException("replicationFactor must be >= 1, got " + replicationFactor);
    }
    TreeSet<Key> points = new TreeSet<>(splitPoints);
    points.remove(Key.EMPTY);
    List<String> ring = zoneInterleaved(nodes);
    int rf = Math.min(replicationFactor, ring.size());
    List<List<String>> placements = new ArrayList<>();
    for (int i = 0; i <= points.size(); i++) {
      List<String> replicas = new ArrayList<>(rf);
      for (int j = 0; j < rf; j++) {
        replicas.add(ring.get((i + j) % ring.size()));
      }
      placements.add(replicas);
    }
    return new PreSplitPlan(List.copyOf(points), placements);
  }

  /** Node ids ordered so consecutive ones are in different zones as long as zones last. */
  static List<String> zoneInterleaved(List<NodeStats> nodes) {
    Map<String, List<String>> byZone = new LinkedHashMap<>();
    for (NodeStats n : nodes) {
      byZone.computeIfAbsent(n.zone(), z -> new ArrayList<>()).add(n.nodeId());
    }
    List<String> out = new ArrayList<>(nodes.size());
    for (int round = 0; out.size() < nodes.size(); round++) {
      for (List<String> zone : byZone.values()) {
        if (round < zone.size()) {
          out.add(zone.get(round));
        }
      }
    }
    return out;
  }
}
