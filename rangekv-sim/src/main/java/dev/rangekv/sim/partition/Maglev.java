package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Maglev hashing (Eisenbud et al., NSDI 2016): each node walks the slots of a prime-sized table in
 * its own order ({@code offset + j * skip mod M}) and the nodes take turns claiming their next free
 * slot until the table is full; a lookup is one array index. A node of weight {@code w} takes
 * {@code w} turns per round.
 */
public final class Maglev implements Partitioner {
  /** The paper's example size: a prime well above 100 times the node count for small clusters. */
  public static final int DEFAULT_TABLE_SIZE = 65_537;

  private final List<Node> nodes;
  private final Hash64 hash;
  private final int[] table;

  public Maglev(List<Node> nodes, int tableSize, Hash64 hash) {
    this.nodes = Schemes.checkNodes(nodes);
    this.hash = hash;
    if (tableSize < this.nodes.size() || !isPrime(tableSize)) {
      throw new IllegalArgumentException("table size must be a prime >= node count, got " + tableSize);
    }
    this.table = fill(this.nodes, tableSize, hash);
  }

  @Override
  public Node owner(Key key) {
    return nodes.get(table[slot(key)]);
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  /** The table's entries from the key's slot onward, once round. */
  @Override
  public Iterator<Node> candidates(Key key) {
    int start = slot(key);
    return new Iterator<>() {
      int step;

      @Override
      public boolean hasNext() {
        return step < table.length;
      }

      @Override
      public Node next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return nodes.get(table[(start + step++) % table.length]);
      }
    };
  }

  /** A copy of the lookup table: entry {@code i} is an index into {@link #nodes()}. */
  public int[] table() {
    return table.clone();
  }

  private int slot(Key key) {
    return (int) Long.remainderUnsigned(hash.hash(HashInput.bytes(key)), table.length);
  }

  private static int[] fill(List<Node> nodes, int m, Hash64 hash) {
    int n = nodes.size();
    long[] offset = new long[n];
    long[] skip = new long[n];
    long[] next = new long[n];
    for (int i = 0; i < n; i++) {
      String name = nodes.get(i).name();
      offset[i] = Long.remainderUnsigned(hash.hash(HashInput.text(name + "#offset")), m);
      skip[i] = Long.remainderUnsigned(hash.hash(HashInput.text(name + "#skip")), m - 1) + 1;
    }
    int[] entry = new int[m];
    Arrays.fill(entry, -1);
    int filled = 0;
    while (true) {
      for (int i = 0; i < n; i++) {
        for (int turn = 0; turn < nodes.get(i).weight(); turn++) {
          // skip is in [1, m-1] and m is prime, so the walk visits every slot: a free one exists.
          long c;
          do {
            c = (offset[i] + next[i] * skip[i]) % m;
            next[i]++;
          } while (entry[(int) c] >= 0);
          entry[(int) c] = i;
          if (++filled == m) {
            return entry;
          }
        }
      }
    }
  }

  static boolean isPrime(int x) {
    if (x < 2) {
      return false;
    }
    for (int d = 2; (long) d * d <= x; d++) {
      if (x % d == 0) {
        return false;
      }
    }
    return true;
  }
}
