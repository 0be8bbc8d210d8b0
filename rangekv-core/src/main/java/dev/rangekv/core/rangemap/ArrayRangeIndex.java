package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;

/**
 * The fast layout: start keys in a sorted array plus a parallel {@code long[]} column holding each
 * start's first 8 bytes ({@link Key#prefix8()}), stored with the sign bit flipped so that a plain
 * signed {@code long} comparison gives the unsigned order.
 *
 * <p>A lookup binary-searches the long column (one cache line holds 8 candidates, no pointer
 * chasing) and compares full keys only when the key's prefix ties with a start's prefix. Ties are
 * resolved by galloping down the run of equal prefixes and binary-searching inside it, so keys
 * sharing long prefixes stay O(log R). Immutable and thread-safe.
 */
public final class ArrayRangeIndex implements RangeIndex {
  private final Key[] starts;
  private final long[] prefixes;

  /** Takes ownership of {@code starts} (sorted, distinct, the first one empty). */
  ArrayRangeIndex(Key[] starts) {
    if (starts.length == 0 || !starts[0].isEmpty()) {
      throw new IllegalArgumentException("the first start key must be the empty key");
    }
    this.starts = starts;
    this.prefixes = new long[starts.length];
    for (int i = 0; i < starts.length; i++) {
      prefixes[i] = sortable(starts[i]);
      if (i > 0 && starts[i - 1].compareTo(starts[i]) >= 0) {
        throw new IllegalArgumentException("start keys must be strictly ascending at index " + i);
      }
    }
  }

  @Override
  public int size() {
    return starts.length;
  }

  @Override
  public int floorIndex(Key key) {
    long p = sortable(key);
    long[] pre = prefixes;
    // Branch-free search for the last prefix <= p; pre[0] is the minimum, so it always exists.
    int base = 0;
    int len = pre.length;
    while (len > 1) {
      int half = len >>> 1;
      base = pre[base + half] <= p ? base + half : base;
      len -= half;
    }
    if (pre[base] != p || starts[base].compareTo(key) <= 0) {
      return base;
    }
    return floorInTieRun(key, p, base);
  }

  @Override
  public void floorIndices(Key[] keys, int[] out) {
    int i = 0;
    int last = starts.length - 1;
    for (int j = 0; j < keys.length; j++) {
      Key k = keys[j];
      long p = sortable(k);
      if (i < last && compareAt(i + 1, k, p) <= 0) {
        i = gallopForward(k, p, i + 1);
      } else if (compareAt(i, k, p) > 0) {
        i = floorIndex(k); // keys out of order: still correct, just not a walk
      }
      out[j] = i;
    }
  }

  /** The start key at {@code index}. */
  Key start(int index) {
    return starts[index];
  }

  /** Given starts[from] <= key: doubles the step until overshooting, then binary-searches. */
  private int gallopForward(Key key, long p, int from) {
    int lo = from;
    int step = 1;
    int probe = from + 1;
    while (probe < starts.length && compareAt(probe, key, p) <= 0) {
      lo = probe;
      step <<= 1;
      probe = lo + step;
    }
    return floorBetween(key, p, lo, Math.min(probe, starts.length));
  }

  /** Given prefixes[hi] == p and starts[hi] > key: gallops down the tie run, then searches. */
  private int floorInTieRun(Key key, long p, int hi) {
    int step = 1;
    int probe = hi - 1;
    while (probe > 0 && compareAt(probe, key, p) > 0) {
      hi = probe;
      step <<= 1;
      probe = Math.max(0, hi - step);
    }
    return floorBetween(key, p, probe, hi);
  }

  /** The greatest index in [lo, hi) whose start is <= key, given that starts[lo] <= key. */
  private int floorBetween(Key key, long p, int lo, int hi) {
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (compareAt(mid, key, p) <= 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** starts[index] compared with key, using the prefix column first. */
  private int compareAt(int index, Key key, long p) {
    long s = prefixes[index];
    if (s != p) {
      return s < p ? -1 : 1;
    }
    return starts[index].compareTo(key);
  }

  private static long sortable(Key key) {
    return key.prefix8() ^ Long.MIN_VALUE;
  }

  @Override
  public String toString() {
    return "ArrayRangeIndex[size=" + starts.length + "]";
  }
}
