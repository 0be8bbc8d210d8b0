package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A consistent-hash ring (Karger et al., 1997) with virtual nodes: node {@code n} of weight
 * {@code w} gets {@code vnodes * w} points at {@code hash("{n}#{i}")}; a key belongs to the first
 * point strictly after its hash, wrapping around (seed 004's {@code bisect.bisect}). Points with
 * equal hashes are ordered by node name, as Python sorts {@code (hash, name)} tuples.
 */
public final class HashRing implements Partitioner {
  private final List<Node> nodes;
  private final Hash64 hash;
  /** Point hashes with the sign bit flipped, so signed order is the unsigned hash order. */
  private final long[] points;
  private final int[] pointNode;

  public HashRing(List<Node> nodes, int vnodes, Hash64 hash) {
    this.nodes = Schemes.checkNodes(nodes);
    this.hash = hash;
    if (vnodes < 1) {
      throw new IllegalArgumentException("vnodes must be >= 1, got " + vnodes);
    }
    int total = 0;
    for (Node n : this.nodes) {
      total = Math.addExact(total, Math.multiplyExact(vnodes, n.weight()));
    }
    long[] h = new long[total];
    int[] owner = new int[total];
    Integer[] order = new Integer[total];
    int p = 0;
    for (int ni = 0; ni < this.nodes.size(); ni++) {
      Node n = this.nodes.get(ni);
      for (int v = 0; v < vnodes * n.weight(); v++) {
        h[p] = hash.hash(HashInput.text(n.name() + "#" + v)) ^ Long.MIN_VALUE;
        owner[p] = ni;
        order[p] = p;
        p++;
      }
    }
    Arrays.sort(order, (a, b) -> {
      int c = Long.compare(h[a], h[b]);
      return c != 0 ? c : this.nodes.get(owner[a]).name().compareTo(this.nodes.get(owner[b]).name());
    });
    points = new long[total];
    pointNode = new int[total];
    for (int i = 0; i < total; i++) {
      points[i] = h[order[i]];
      pointNode[i] = owner[order[i]];
    }
  }

  @Override
  public Node owner(Key key) {
    return nodes.get(pointNode[pointAfter(hash.hash(HashInput.bytes(key)))]);
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  /** Every point once, clockwise from the key's owner point. */
  @Override
  public Iterator<Node> candidates(Key key) {
    int start = pointAfter(hash.hash(HashInput.bytes(key)));
    return new Iterator<>() {
      int step;

      @Override
      public boolean hasNext() {
        return step < points.length;
      }

      @Override
      public Node next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return nodes.get(pointNode[(start + step++) % points.length]);
      }
    };
  }

  /** Number of points on the ring. */
  int size() {
    return points.length;
  }

  /** Index (into {@link #nodes()}) of the node owning point {@code i mod size()}. */
  int nodeAt(int i) {
    return pointNode[Math.floorMod(i, points.length)];
  }

  /** Index of the first point whose hash is strictly greater than {@code h}, wrapping to 0. */
  int pointAfter(long h) {
    long x = h ^ Long.MIN_VALUE;
    int lo = 0;
    int hi = points.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (points[mid] <= x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == points.length ? 0 : lo;
  }

  Hash64 hash() {
    return hash;
  }
}
