package dev.rangekv.sim.partition;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Shared argument checks for partitioner constructors. */
final class Schemes {
  private Schemes() {}

  static List<Node> checkNodes(List<Node> nodes) {
    List<Node> copy = List.copyOf(nodes);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("a partitioner needs at least one node");
    }
    Set<String> names = new HashSet<>();
    for (Node n : copy) {
      if (!names.add(n.name())) {
        throw new IllegalArgumentException("duplicate node name=" + n.name());
      }
    }
    return copy;
  }
}
