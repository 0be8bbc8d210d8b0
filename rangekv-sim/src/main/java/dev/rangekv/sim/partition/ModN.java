package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * {@code hash(key) mod N}: balanced, but growing from N to N + 1 nodes moves about N / (N + 1) of
 * the keys (seed 004). Weights are ignored.
 */
public final class ModN implements Partitioner {
  private final List<Node> nodes;
  private final Hash64 hash;

  public ModN(List<Node> nodes, Hash64 hash) {
    this.nodes = Schemes.checkNodes(nodes);
    this.hash = hash;
  }

  /** The bucket {@code hash mod n}, treating the hash as unsigned as the seeds' Python does. */
  public static int bucket(long hash, int n) {
    return (int) Long.remainderUnsigned(hash, n);
  }

  @Override
  public Node owner(Key key) {
    return nodes.get(bucket(hash.hash(HashInput.bytes(key)), nodes.size()));
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public Iterator<Node> candidates(Key key) {
    int first = bucket(hash.hash(HashInput.bytes(key)), nodes.size());
    return IntStream.range(0, nodes.size()).mapToObj(i -> nodes.get((first + i) % nodes.size())).iterator();
  }
}
