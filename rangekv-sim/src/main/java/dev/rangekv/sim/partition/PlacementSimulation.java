package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seed 004's experiment as a pure function: place keys with a scheme, change the membership, and
 * measure the share of keys that changed owner, whether every move was necessary, and the busiest
 * node's key count relative to the mean before and after.
 */
public final class PlacementSimulation {
  private PlacementSimulation() {}

  /**
   * The outcome of one membership change.
   *
   * @param moved keys whose owner changed
   * @param minimal every moved key went to an added node or left a removed node
   * @param maxBefore the busiest node's key count before the change
   * @param maxAfter the busiest node's key count after the change
   */
  public record Churn(String scheme, int keys, int nodesBefore, int nodesAfter, int moved, boolean minimal,
      int maxBefore, int maxAfter) {
    public double movedShare() {
      return (double) moved / keys;
    }

    /** Busiest / mean key count before the change (seed 004's "max/mean" column). */
    public double peakBefore() {
      return maxBefore / ((double) keys / nodesBefore);
    }

    public double peakAfter() {
      return maxAfter / ((double) keys / nodesAfter);
    }

    /** The smallest share that must move: what the added nodes (or removed nodes) hold afterwards. */
    public static double idealShare(int nodesBefore, int nodesAfter) {
      return (double) Math.abs(nodesAfter - nodesBefore) / Math.max(nodesAfter, nodesBefore);
    }
  }

  /** Keys made from a pattern with {@code {i}} replaced by each index in {@code [from, from + count)}. */
  public static List<Key> keys(String pattern, long from, int count) {
    if (!pattern.contains("{i}")) {
      throw new IllegalArgumentException("key pattern must contain {i}, got " + pattern);
    }
    int at = pattern.indexOf("{i}");
    String head = pattern.substring(0, at);
    String tail = pattern.substring(at + 3);
    List<Key> out = new ArrayList<>(count);
    for (long i = from; i < from + count; i++) {
      out.add(Key.utf8(head + i + tail));
    }
    return List.copyOf(out);
  }

  /** Nodes named {@code "0"} .. {@code "n-1"}, as seed 004 names them. */
  public static List<Node> numberedNodes(int n) {
    List<Node> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(Node.of(Integer.toString(i)));
    }
    return List.copyOf(out);
  }

  /** The owner of each key, in key order. */
  public static Node[] owners(Partitioner p, List<Key> keys) {
    Node[] out = new Node[keys.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = p.owner(keys.get(i));
    }
    return out;
  }

  /** Runs {@code scheme} on {@code before}, then on {@code after}, and compares the placements. */
  public static Churn churn(Scheme scheme, List<Key> keys, List<Node> before, List<Node> after) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("churn needs at least one key");
    }
    Node[] ob = owners(scheme.build(before, keys), keys);
    Node[] oa = owners(scheme.build(after, keys), keys);
    Set<String> beforeNames = names(before);
    Set<String> afterNames = names(after);
    int moved = 0;
    boolean minimal = true;
    for (int i = 0; i < ob.length; i++) {
      if (!ob[i].name().equals(oa[i].name())) {
        moved++;
        boolean toAdded = !beforeNames.contains(oa[i].name());
        boolean fromRemoved = !afterNames.contains(ob[i].name());
        minimal &= toAdded || fromRemoved;
      }
    }
    return new Churn(scheme.name(), keys.size(), before.size(), after.size(), moved, minimal, maxCount(ob),
        maxCount(oa));
  }

  /** The largest number of keys any one node owns. */
  public static int maxCount(Node[] owners) {
    Map<String, Integer> counts = new HashMap<>();
    int max = 0;
    for (Node n : owners) {
      max = Math.max(max, counts.merge(n.name(), 1, Integer::sum));
    }
    return max;
  }

  /**
   * Seed 004's "Try it" 4: the share of keys whose first {@code r} replicas change when the
   * replicas must also sit in distinct zones.
   */
  public static double zoneConstraintChangeShare(Partitioner p, List<Key> keys, int r) {
    int changed = 0;
    for (Key k : keys) {
      if (!Replicas.place(p, k, r, false).equals(Replicas.place(p, k, r, true))) {
        changed++;
      }
    }
    return (double) changed / keys.size();
  }

  /** Nodes named {@code "0"} .. {@code "n-1"} in zones {@code "z0"} .. {@code "z(zones-1)"}, round-robin. */
  public static List<Node> zonedNodes(int n, int zones) {
    List<Node> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new Node(Integer.toString(i), 1, "z" + (i % zones)));
    }
    return List.copyOf(out);
  }

  private static Set<String> names(List<Node> nodes) {
    Set<String> s = new HashSet<>();
    nodes.forEach(n -> s.add(n.name()));
    return s;
  }
}
