package dev.rangekv.sim.partition;

import java.nio.charset.StandardCharsets;

/**
 * A node as a partitioner sees it: a name (hashed for placement), a positive integer weight, and a
 * zone for replica spreading ({@code ""} when zones are not used).
 *
 * <p>Names are hashed as UTF-8, so {@code Node.of("3")} places like the seeds' node {@code "3"}.
 */
public record Node(String name, int weight, String zone) {
  public Node {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("node name must be non-empty");
    }
    if (weight < 1) {
      throw new IllegalArgumentException("node weight must be >= 1, got " + weight + " name=" + name);
    }
    if (zone == null) {
      throw new IllegalArgumentException("node zone must not be null; use \"\" for none");
    }
  }

  /** A node of weight 1 with no zone. */
  public static Node of(String name) {
    return new Node(name, 1, "");
  }

  public Node withWeight(int newWeight) {
    return new Node(name, newWeight, zone);
  }

  public Node inZone(String newZone) {
    return new Node(name, weight, newZone);
  }

  byte[] nameBytes() {
    return name.getBytes(StandardCharsets.UTF_8);
  }
}
