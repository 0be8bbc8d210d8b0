package dev.rangekv.server.stats;


import java.util.Arrays;
import java.util.function.LongFunction;

/**
 * A map from range id to value with lock-free, allocation-free lookups: an open-addressing table
 * replaced wholesale (copy on write) when a range is added or removed. Lookups happen on every request;
 * additions once per range, removals once per drain, so copying is the cheap side. (A
 * {@code ConcurrentHashMap<Long, V>} would box the id on every lookup.) Thread-safe.
 */
final class RangeIdMap<V> {
  private static final Object[] NO_VALUES = new Object[0];

  /** An immutable table: power-of-two capacity, at most half full; a null value marks a free slot. */
  private record Slots(long[] ids, Object[] values, int size) {}

  private volatile Slots slots = new Slots(new long[0], NO_VALUES, 0);

  /** The value for {@code id}; null when absent. */
  V get(long id) {
    Slots s = slots;
    int mask = s.ids.length - 1;
    if (mask < 0) {
      return null;
    }
    for (int i = index(id, mask); ; i = (i + 1) & mask) {
      Object v = s.values[i];
      if (v == null) {
        return null;
      }
      if (s.ids[i] == id) {
        @SuppressWarnings("unchecked")
        V found = (V) v;
        return found;
      }
    }
  }

  /** The value for {@code id}, created by {@code create} (under this table's lock) when absent. */
  V getOrCreate(long id, LongFunction<V> create) {
    V v = get(id);
    return v != null ? v : create(id, create);
  }

  private synchronized V create(long id, LongFunction<V> create) {
    V v = get(id);
    if (v != null) {
      return v;
    }
    v = create.apply(id);
    Slots s = slots;
    int capacity = Math.max(8, s.ids.length);
    while ((s.size + 1) * 2 > capacity) {
      capacity *= 2;
    }
    Slots next = new Slots(new long[capacity], new Object[capacity], 0);
    for (int i = 0; i < s.ids.length; i++) {
      if (s.values[i] != null) {
        put(next, s.ids[i], s.values[i]);
      }
    }
    put(next, id, v);
    slots = new Slots(next.ids, next.values, s.size + 1);
    return v;
  }

  /** Removes every id in {@code ids}. */
  synchronized void removeAll(long[] ids) {
    if (ids.length == 0) {
      return;
    }
    long[] gone = ids.clone();
    Arrays.sort(gone);
    Slots s = slots;
    Slots next = new Slots(new long[s.ids.length], new Object[s.ids.length], 0);
    int size = 0;
    for (int i = 0; i < s.ids.length; i++) {
      if (s.values[i] != null && Arrays.binarySearch(gone, s.ids[i]) < 0) {
        put(next, s.ids[i], s.values[i]);
        size++;
      }
    }
    slots = new Slots(next.ids, next.values, size);
  }

  /** Visits every entry of the current table. */
  void forEach(Entry<V> visit) {
    Slots s = slots;
    for (int i = 0; i < s.ids.length; i++) {
      if (s.values[i] != null) {
        @SuppressWarnings("unchecked")
        V v = (V) s.values[i];
        visit.accept(s.ids[i], v);
      }
    }
  }

  int size() {
    return slots.size;
  }

  @FunctionalInterface
  interface Entry<V> {
    void accept(long id, V value);
  }

  private static void put(Slots s, long id, Object v) {
    int mask = s.ids.length - 1;
    int i = index(id, mask);
    while (s.values[i] != null) {
      i = (i + 1) & mask;
    }
    s.ids[i] = id;
    s.values[i] = v;
  }

  private static int index(long id, int mask) {
    long z = id * 0x9E3779B97F4A7C15L;
    return (int) (z ^ (z >>> 32)) & mask;
  }
}
