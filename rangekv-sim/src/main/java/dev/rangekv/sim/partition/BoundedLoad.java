package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam, 2018) over a
 * {@link HashRing}: keys are placed in the order given; each node holds at most
 * {@code ceil(c * K * w / W)} keys, and a key whose ring owner is full walks clockwise to the next
 * point whose node has room (seed 004's {@code bounded_ring}).
 *
 * <p>The placement depends on the key set and its order, so it is computed once, up front. A key
 * outside that set is answered with where it would go next: the first node with room from its
 * point, or its plain ring owner when every node is full.
 */
public final class BoundedLoad implements Partitioner {
  private final HashRing ring;
  private final Map<Key, Node> placed;
  private final int[] load;
  private final long[] cap;

  public BoundedLoad(List<Node> nodes, int vnodes, double c, List<Key> keys, Hash64 hash) {
    if (!(c >= 1.0)) {
      throw new IllegalArgumentException("load factor c must be >= 1, got " + c);
    }
    this.ring = new HashRing(nodes, vnodes, hash);
    List<Node> ns = ring.nodes();
    long totalWeight = ns.stream().mapToLong(Node::weight).sum();
    this.cap = new long[ns.size()];
    for (int i = 0; i < cap.length; i++) {
      // Same operation order as the seed's ceil(c * len(KEYS) / len(nodes)) when weights are 1,
      // so the floating-point rounding (and thus the cap) is identical.
      cap[i] = (long) Math.ceil(c * keys.size() * ns.get(i).weight() / totalWeight);
    }
    this.load = new int[ns.size()];
    this.placed = new HashMap<>(keys.size() * 2);
    for (Key k : keys) {
      if (placed.containsKey(k)) {
        continue;
      }
      int p = ring.pointAfter(hash.hash(HashInput.bytes(k)));
      int steps = 0;
      while (load[ring.nodeAt(p)] >= cap[ring.nodeAt(p)]) {
        p++;
        if (++steps > ring.size()) {
          throw new IllegalStateException("bounded load: every node is at its cap, caps must sum to >= keys");
        }
      }
      int node = ring.nodeAt(p);
      load[node]++;
      placed.put(k, ns.get(node));
    }
  }

  /** The cap of node {@code i} (index into {@link #nodes()}). */
  public long capOf(int i) {
    return cap[i];
  }

  /** Keys placed on node {@code i} (index into {@link #nodes()}). */
  public int loadOf(int i) {
    return load[i];
  }

  @Override
  public Node owner(Key key) {
    Node n = placed.get(key);
    if (n != null) {
      return n;
    }
    int p = ring.pointAfter(ring.hash().hash(HashInput.bytes(key)));
    for (int step = 0; step < ring.size(); step++) {
      int node = ring.nodeAt(p + step);
      if (load[node] < cap[node]) {
        return ring.nodes().get(node);
      }
    }
    return ring.owner(key);
  }

  @Override
  public List<Node> nodes() {
    return ring.nodes();
  }

  @Override
  public Iterator<Node> candidates(Key key) {
    Node first = owner(key);
    Iterable<Node> rest = () -> ring.candidates(key);
    return Stream.concat(Stream.of(first), StreamSupport.stream(rest.spliterator(), false))
        .iterator();
  }
}
