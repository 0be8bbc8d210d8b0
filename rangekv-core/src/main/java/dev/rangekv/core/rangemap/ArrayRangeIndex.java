package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;

/**
 * The fast layout: start keys in a sorted array plus a parallel {@code long[]} column holding 8 bytes
 * of each start ({@link Key#prefix8At}), stored with the sign bit flipped so that a plain signed
 * {@code long} comparison gives the unsigned order. The 8 bytes are taken after the prefix that all
 * non-empty starts share (e.g. {@code "tenant1/"}), so keys of one table or tenant do not all tie;
 * a key outside that shared prefix gets the column's minimum or maximum.
 *
 * <p>A lookup first reads a radix table: the top bits of the key's prefix (taken relative to the
 * span the start keys cover) pick a bucket, and the table says which slice of the array can hold the
 * answer. It then binary-searches that slice of the long column, branch-free (8 candidates per cache
 * line, no pointer chasing), and compares full keys only when the key's prefix ties with a start's.
 * Ties are resolved by galloping down the run of equal prefixes and binary-searching inside it, so
 * keys sharing long prefixes stay O(log R). The radix step only narrows the search: with skewed keys
 * a bucket is large and the search is an ordinary binary search. Immutable and thread-safe.
 */
public final class ArrayRangeIndex implements RangeIndex {
  private final Key[] starts;
  private final long[] prefixes;
  /** The prefix every start but the empty first one shares; the column holds the bytes after it. */
  private final Key common;
  private final int commonLength;
  /** bucketStart[b]: the first index >= 1 whose start's bucket is >= b; bucketStart[buckets] = size. */
  private final int[] bucketStart;
  /** Unsigned prefix of starts[1]: bucket 0 begins there. */
  private final long radixBase;
  private final int radixShift;

  /** Takes ownership of {@code starts} (sorted, distinct, the first one empty). */
  ArrayRangeIndex(Key[] starts) {
    if (starts.length == 0 || !starts[0].isEmpty()) {
      throw new IllegalArgumentException("the first start key must be the empty key");
    }
    this.starts = starts;
    for (int i = 1; i < starts.length; i++) {
      if (starts[i - 1].compareTo(starts[i]) >= 0) {
        throw new IllegalArgumentException("start keys must be strictly ascending at index " + i);
      }
    }
    // Sorted, so the prefix shared by the first and the last non-empty start is shared by all.
    Key last = starts[starts.length - 1];
    this.commonLength = starts.length > 1 ? starts[1].commonPrefixLength(last) : 0;
    this.common = last.prefix(commonLength);
    this.prefixes = new long[starts.length];
    for (int i = 0; i < starts.length; i++) {
      prefixes[i] = column(starts[i]);
    }
    int bits = Math.min(16, 32 - Integer.numberOfLeadingZeros(Math.max(1, starts.length - 1)));
    this.radixBase = prefixes[Math.min(1, starts.length - 1)] ^ Long.MIN_VALUE;
    long span = (prefixes[starts.length - 1] ^ Long.MIN_VALUE) - radixBase;
    this.radixShift = Math.max(0, 64 - Long.numberOfLeadingZeros(span) - bits);
    int buckets = 1 << bits;
    this.bucketStart = new int[buckets + 1];
    int i = 1;
    for (int b = 0; b <= buckets; b++) {
      while (i < starts.length && bucket(prefixes[i]) < b) {
        i++;
      }
      bucketStart[b] = i;
    }
    bucketStart[buckets] = starts.length;
  }

  /** Monotonic in the column value: below the base goes to bucket 0, above the span to the last. */
  private int bucket(long columnValue) {
    long unsignedPrefix = columnValue ^ Long.MIN_VALUE;
    if (Long.compareUnsigned(unsignedPrefix, radixBase) < 0) {
      return 0;
    }
    long b = (unsignedPrefix - radixBase) >>> radixShift;
    int last = bucketStart.length - 2;
    return Long.compareUnsigned(b, last) > 0 ? last : (int) b;
  }

  @Override
  public int size() {
    return starts.length;
  }

  @Override
  public int floorIndex(Key key) {
    long p = column(key);
    long[] pre = prefixes;
    // Indexes before bucketStart[b] have a smaller bucket, so a prefix <= p; those from
    // bucketStart[b + 1] on have a larger one, so a prefix > p. The answer lies in between.
    int b = bucket(p);
    int base = bucketStart[b] - 1;
    int len = bucketStart[b + 1] - base;
    // Branch-free search for the last prefix <= p in [base, base + len).
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
      long p = column(k);
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

  /**
   * The key's column value: monotonic in key order, so a column tie is the only case needing a full
   * compare. Keys without the shared prefix sort entirely below or above every start that has it.
   */
  private long column(Key key) {
    if (commonLength == 0) {
      return key.prefix8() ^ Long.MIN_VALUE;
    }
    if (key.startsWith(common)) {
      return key.prefix8At(commonLength) ^ Long.MIN_VALUE;
    }
    return key.compareTo(common) < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
  }

  @Override
  public String toString() {
    return "ArrayRangeIndex[size=" + starts.length + "]";
  }
}
