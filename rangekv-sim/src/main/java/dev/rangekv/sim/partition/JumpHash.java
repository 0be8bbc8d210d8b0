package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Jump consistent hash (Lamping and Veach, 2014): node {@code i} is bucket {@code i}, so nodes may
 * only be added or removed at the end of the list. O(ln N) time, no memory. Weights are ignored.
 */
public final class JumpHash implements Partitioner {
  private final List<Node> nodes;
  private final Hash64 hash;

  public JumpHash(List<Node> nodes, Hash64 hash) {
    this.nodes = Schemes.checkNodes(nodes);
    this.hash = hash;
  }

  /**
   * The paper's algorithm. The floating-point step is kept exactly as published (and as seed 004's
   * Python computes it) so results match bit for bit.
   */
  public static int bucket(long key, int buckets) {
    if (buckets < 1) {
      throw new IllegalArgumentException("buckets must be >= 1, got " + buckets);
    }
    long b = -1;
    long j = 0;
    while (j < buckets) {
      b = j;
      key = key * 2862933555777941757L + 1;
      j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
    }
    return (int) b;
  }

  @Override
  public Node owner(Key key) {
    return nodes.get(bucket(hash.hash(HashInput.bytes(key)), nodes.size()));
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  /** The owner, then the following bucket numbers (jump has no natural successor list). */
  @Override
  public Iterator<Node> candidates(Key key) {
    int first = bucket(hash.hash(HashInput.bytes(key)), nodes.size());
    return IntStream.range(0, nodes.size()).mapToObj(i -> nodes.get((first + i) % nodes.size())).iterator();
  }
}
