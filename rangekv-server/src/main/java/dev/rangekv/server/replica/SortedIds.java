package dev.rangekv.server.replica;

import java.util.Arrays;

/**
 * A set of longs kept sorted in one array, for the request ids one client has recorded on one range,
 * ordered as unsigned numbers (as the ids' hex field names sort, which is the order a trim deletes in).
 * Ids mostly arrive in increasing order (an append) and leave from the low end (a trim drops a prefix),
 * so both are cheap; an id out of order is inserted in place. Not thread-safe.
 *
 * <p>Implementation: each id is held with its sign bit flipped, so that signed order of what is held is
 * unsigned order of the ids.
 */
final class SortedIds {
  private long[] ids;
  /** Live ids are {@code ids[head, head + size)}, ascending, without duplicates. */
  private int head;
  private int size;

  SortedIds(long[] unordered) {
    long[] held = new long[Math.max(8, unordered.length)];
    for (int i = 0; i < unordered.length; i++) {
      held[i] = unordered[i] ^ Long.MIN_VALUE;
    }
    Arrays.sort(held, 0, unordered.length);
    for (int i = 1; i < unordered.length; i++) {
      if (held[i - 1] == held[i]) {
        throw new IllegalArgumentException("duplicate id " + (held[i] ^ Long.MIN_VALUE));
      }
    }
    this.ids = held;
    this.size = unordered.length;
  }

  int size() {
    return size;
  }

  boolean contains(long unsignedId) {
    long id = unsignedId ^ Long.MIN_VALUE;
    return size > 0 && id >= ids[head] && id <= ids[head + size - 1] && search(id) >= 0;
  }

  /** Adds {@code id}; false when it was there already. */
  boolean add(long unsignedId) {
    long id = unsignedId ^ Long.MIN_VALUE;
    if (size == 0 || id > ids[head + size - 1]) {
      makeRoom();
      ids[head + size] = id;
      size++;
      return true;
    }
    if (search(id) >= 0) {
      return false;
    }
    makeRoom(); // may move the live ids: search again after it
    int insert = -search(id) - 1;
    System.arraycopy(ids, insert, ids, insert + 1, head + size - insert);
    ids[insert] = id;
    size++;
    return true;
  }

  /** Removes every id in {@code [from, to)} (unsigned) and returns them, ascending. */
  long[] removeRange(long unsignedFrom, long unsignedTo) {
    long from = unsignedFrom ^ Long.MIN_VALUE;
    long to = unsignedTo ^ Long.MIN_VALUE;
    if (size == 0 || from >= to) {
      return new long[0];
    }
    int lo = insertionPoint(from);
    int hi = insertionPoint(to);
    long[] removed = new long[hi - lo];
    for (int i = lo; i < hi; i++) {
      removed[i - lo] = ids[i] ^ Long.MIN_VALUE;
    }
    if (lo == head) {
      head = hi; // the usual trim: a prefix
    } else {
      System.arraycopy(ids, hi, ids, lo, head + size - hi);
    }
    size -= removed.length;
    if (size == 0) {
      head = 0;
    }
    return removed;
  }

  /** The ids, in unsigned ascending order (a copy). */
  long[] toArray() {
    long[] out = new long[size];
    for (int i = 0; i < size; i++) {
      out[i] = ids[head + i] ^ Long.MIN_VALUE;
    }
    return out;
  }

  private int search(long id) {
    return Arrays.binarySearch(ids, head, head + size, id);
  }

  /** Index of the first live id at or above {@code id}. */
  private int insertionPoint(long id) {
    int at = search(id);
    return at >= 0 ? at : -at - 1;
  }

  /** Room for one more id at the end: slide the live ids to the front, or grow. */
  private void makeRoom() {
    if (head + size < ids.length) {
      return;
    }
    if (head > 0 && size < ids.length / 2) {
      System.arraycopy(ids, head, ids, 0, size);
    } else {
      long[] grown = new long[Math.max(8, ids.length * 2)];
      System.arraycopy(ids, head, grown, 0, size);
      ids = grown;
    }
    head = 0;
  }
}
