package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.Iterator;
import java.util.List;

/**
 * Maps a key to the node that owns it. Implementations are immutable, deterministic (same nodes,
 * same hash, same answer on every machine) and thread-safe.
 */
public interface Partitioner {
  /** The node that owns {@code key}. */
  Node owner(Key key);

  /** The nodes this partitioner places onto, in the order given. */
  List<Node> nodes();

  /**
   * The nodes in this scheme's natural preference order for {@code key}: {@link #owner} first, then
   * the scheme's successors (next ring points, next-highest scores, next table slots). May repeat
   * nodes and is finite; {@link Replicas} dedups it.
   */
  Iterator<Node> candidates(Key key);
}
