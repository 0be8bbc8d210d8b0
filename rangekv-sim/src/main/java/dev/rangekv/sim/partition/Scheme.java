package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.List;

/**
 * A named way to build a {@link Partitioner} for a node list, so a simulation can build the same
 * scheme before and after membership changes. {@code keys} is the key set in arrival order; only
 * bounded loads uses it.
 */
public record Scheme(String name, Builder builder) {
  /** Builds a partitioner over {@code nodes}. */
  @FunctionalInterface
  public interface Builder {
    Partitioner build(List<Node> nodes, List<Key> keys);
  }

  public Partitioner build(List<Node> nodes, List<Key> keys) {
    return builder.build(nodes, keys);
  }

  public static Scheme modN(Hash64 hash) {
    return new Scheme("hash mod N", (nodes, keys) -> new ModN(nodes, hash));
  }

  public static Scheme ring(int vnodes, Hash64 hash) {
    String label = vnodes == 1 ? "ring, 1 point per node" : String.format("ring, %,d points per node", vnodes);
    return new Scheme(label, (nodes, keys) -> new HashRing(nodes, vnodes, hash));
  }

  public static Scheme rendezvous(Hash64 hash) {
    return new Scheme("rendezvous (HRW)", (nodes, keys) -> new Rendezvous(nodes, hash));
  }

  public static Scheme jump(Hash64 hash) {
    return new Scheme("jump consistent hash", (nodes, keys) -> new JumpHash(nodes, hash));
  }

  public static Scheme maglev(int tableSize, Hash64 hash) {
    return new Scheme(String.format("maglev, table %,d", tableSize),
        (nodes, keys) -> new Maglev(nodes, tableSize, hash));
  }

  public static Scheme boundedLoad(int vnodes, double c, Hash64 hash) {
    return new Scheme(String.format("ring %d + bounded load %.2f", vnodes, c),
        (nodes, keys) -> new BoundedLoad(nodes, vnodes, c, keys, hash));
  }

  /** Seed 004's eight schemes in its table's order, plus Maglev. */
  public static List<Scheme> seed004(Hash64 hash) {
    return List.of(modN(hash), ring(1, hash), ring(10, hash), ring(100, hash), ring(1000, hash),
        rendezvous(hash), jump(hash), boundedLoad(100, 1.10, hash), maglev(Maglev.DEFAULT_TABLE_SIZE, hash));
  }
}
