package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Replica placement: the first {@code r} distinct nodes of a partitioner's preference order,
 * optionally also in distinct zones (seed 004: walking a ring can hit two points of one machine or
 * two machines of one zone).
 */
public final class Replicas {
  private Replicas() {}

  /**
   * The replica set of {@code key}, owner first. With {@code distinctZones}, a node whose zone is
   * already used is skipped. Returns fewer than {@code r} nodes only when the cluster has fewer
   * distinct nodes (or zones) than {@code r}.
   */
  public static List<Node> place(Partitioner partitioner, Key key, int r, boolean distinctZones) {
    if (r < 1) {
      throw new IllegalArgumentException("replica count must be >= 1, got " + r);
    }
    List<Node> out = new ArrayList<>(r);
    Set<String> names = new HashSet<>();
    Set<String> zones = new HashSet<>();
    Iterator<Node> it = partitioner.candidates(key);
    while (out.size() < r && it.hasNext()) {
      Node n = it.next();
      if (names.contains(n.name()) || (distinctZones && zones.contains(n.zone()))) {
        continue;
      }
      names.add(n.name());
      zones.add(n.zone());
      out.add(n);
    }
    return List.copyOf(out);
  }
}
