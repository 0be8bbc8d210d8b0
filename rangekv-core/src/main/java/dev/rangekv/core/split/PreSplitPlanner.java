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

  /**
   * The nodes to add to a range on {@code current} so it has {@code replicationFactor} replicas (or as
   * many as there are nodes) before it is split, so that every child is born with its full replica set
   * and a pre-split never leaves ranges to be up-replicated one by one afterwards. Nodes in zones the
   * range does not use yet come first, then the rest, each group in {@link #zoneInterleaved} order.
   */
  public static List<String> missingReplicas(List<String> current, List<NodeStats> nodes, int replicationFactor) {
    if (replicationFactor < 1) {
      throw new IllegalArgumentException("replicationFactor must be >= 1, got " + replicationFactor);
    }
    Map<String, String> zoneOf = new LinkedHashMap<>();
    nodes.forEach(n -> zoneOf.put(n.nodeId(), n.zone()));
    java.util.Set<String> usedZones = new java.util.HashSet<>();
    current.forEach(id -> usedZones.add(zoneOf.getOrDefault(id, "")));
    List<String> newZone = new ArrayList<>();
    List<String> sameZone = new ArrayList<>();
    for (String id : zoneInterleaved(nodes)) {
      if (!current.contains(id)) {
        (usedZones.contains(zoneOf.get(id)) ? sameZone : newZone).add(id);
      }
    }
    List<String> out = new ArrayList<>();
    int wanted = Math.min(replicationFactor, current.size() + newZone.size() + sameZone.size()) - current.size();
    for (String id : newZone) {
      if (out.size() < wanted) {
        out.add(id);
        usedZones.add(zoneOf.get(id));
      }
    }
    for (String id : sameZone) {
      if (out.size() < wanted) {
        out.add(id);
      }
    }
    return List.copyOf(out);
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
