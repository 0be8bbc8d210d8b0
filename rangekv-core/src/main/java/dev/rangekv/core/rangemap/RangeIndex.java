package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import java.util.List;

/**
 * A search structure over the sorted start keys of a tiling: finds the range that holds a key.
 *
 * <p>Two layouts exist so the benchmark can compare them: {@link ArrayRangeIndex} (sorted array with
 * an 8-byte prefix column, the one {@link RangeMap} uses) and {@link TreeRangeIndex} (a {@code
 * TreeMap}). Implementations are immutable and thread-safe.
 */
public interface RangeIndex {

  /** The number of start keys. */
  int size();

  /** The index of the greatest start key {@code <=} key; the first start must be the empty key. */
  int floorIndex(Key key);

  /**
   * Routes a batch: {@code out[j] = floorIndex(keys[j])} for {@code j} in {@code [0, keys.length)}.
   * Correct for keys in any order, fast for keys in ascending order (one merge-walk over the ranges).
   */
  void floorIndices(Key[] keys, int[] out);

  /** The sorted-array layout over {@code starts} (sorted, distinct, first empty). */
  static RangeIndex sortedArray(List<Key> starts) {
    return new ArrayRangeIndex(starts.toArray(new Key[0]));
  }

  /** The {@code TreeMap} layout over {@code starts} (sorted, distinct, first empty). */
  static RangeIndex treeMap(List<Key> starts) {
    return new TreeRangeIndex(starts);
  }
}
