package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The textbook layout: a {@code TreeMap} from start key to range index, searched with {@code
 * floorEntry}. Kept as the baseline the benchmark compares {@link ArrayRangeIndex} against.
 * Immutable after construction and thread-safe.
 */
public final class TreeRangeIndex implements RangeIndex {
  private final TreeMap<Key, Integer> byStart = new TreeMap<>();

  TreeRangeIndex(List<Key> starts) {
    for (int i = 0; i < starts.size(); i++) {
      byStart.put(starts.get(i), i);
    }
    if (byStart.size() != starts.size()) {
      throw new IllegalArgumentException("start keys must be distinct");
    }
  }

  @Override
  public int size() {
    return byStart.size();
  }

  @Override
  public int floorIndex(Key key) {
    return byStart.floorEntry(key).getValue();
  }

  /** A merge-walk with the tree: stays on the current entry until the key reaches the next start. */
  @Override
  public void floorIndices(Key[] keys, int[] out) {
    Map.Entry<Key, Integer> current = byStart.firstEntry();
    Key next = byStart.higherKey(current.getKey());
    for (int j = 0; j < keys.length; j++) {
      Key k = keys[j];
      if ((next != null && next.compareTo(k) <= 0) || current.getKey().compareTo(k) > 0) {
        current = byStart.floorEntry(k);
        next = byStart.higherKey(current.getKey());
      }
      out[j] = current.getValue();
    }
  }
}
