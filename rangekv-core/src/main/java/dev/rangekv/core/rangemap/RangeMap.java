package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable snapshot of range descriptors tiling the keyspace, with lookup, batched lookup, scan
 * planning, split, merge and replace-by-generation. Every update returns a new map and leaves this
 * one untouched, so a snapshot can be shared between threads and swapped atomically by its owner.
 *
 * <p>Invariants, checked on construction (an {@link IllegalStateException} names the broken one):
 * the ranges chain from the empty key to +infinity with no gap and no overlap. Generations never go
 * down: for every key, the range covering it in a derived map has a generation at least as high as
 * in this one.
 *
 * <p>A map built by {@link #apply} from partial, possibly stale news is a cache: a range may then
 * appear in several trimmed pieces with the same id and an old generation (see {@link
 * #apply(RangeDescriptor)}); {@link #byId} returns the piece with the highest generation.
 *
 * <p>Implementation notes: descriptors live in a sorted array searched through an {@link
 * ArrayRangeIndex} (long prefix column first, full key compare on ties), which benchmarks well ahead
 * of a {@code TreeMap} (see BENCHMARKS.md). Updates copy the array: O(R) per update, O(log R) per
 * lookup, fine for a map read millions of times per change.
 */
public final class RangeMap {
  private final RangeDescriptor[] ranges;
  private final ArrayRangeIndex index;
  private final Map<Long, Integer> indexById;
  private final long version;

  private RangeMap(RangeDescriptor[] ranges, long version) {
    List<RangeDescriptor> list = Collections.unmodifiableList(Arrays.asList(ranges));
    Tiling.check(list);
    this.ranges = ranges;
    this.version = version;
    Key[] starts = new Key[ranges.length];
    Map<Long, Integer> ids = new HashMap<>(ranges.length * 2);
    for (int i = 0; i < ranges.length; i++) {
      starts[i] = ranges[i].start();
      Integer seen = ids.get(ranges[i].rangeId());
      if (seen == null || ranges[seen].generation() < ranges[i].generation()) {
        ids.put(ranges[i].rangeId(), i);
      }
    }
    this.index = new ArrayRangeIndex(starts);
    this.indexById = ids;
  }

  /** A map of exactly {@code ranges}, in key order; fails unless they tile the keyspace. */
  public static RangeMap of(List<RangeDescriptor> ranges) {
    return new RangeMap(ranges.toArray(new RangeDescriptor[0]), 0);
  }

  /** One range covering every key, generation 1: the map of a fresh cluster. */
  public static RangeMap initial(long rangeId, List<String> replicas) {
    return of(List.of(new RangeDescriptor(rangeId, Key.EMPTY, RangeEnd.INFINITY, replicas, 1)));
  }

  /**
   * Ranges cut at {@code splitPoints} (ascending, none empty), ids {@code firstRangeId,
   * firstRangeId + 1, ...} in key order, all at generation 1 on the same replicas.
   */
  public static RangeMap presplit(List<Key> splitPoints, long firstRangeId, List<String> replicas) {
    List<RangeDescriptor> out = new ArrayList<>(splitPoints.size() + 1);
    for (int i = 0; i <= splitPoints.size(); i++) {
      Key start = i == 0 ? Key.EMPTY : splitPoints.get(i - 1);
      RangeEnd end = i < splitPoints.size() ? RangeEnd.at(splitPoints.get(i)) : RangeEnd.INFINITY;
      out.add(new RangeDescriptor(firstRangeId + i, start, end, replicas, 1));
    }
    return of(out);
  }

  /** Counts the updates that led to this snapshot: 0 when built by a factory, +1 per change. */
  public long version() {
    return version;
  }

  public int size() {
    return ranges.length;
  }

  /** The ranges in key order. */
  public List<RangeDescriptor> ranges() {
    return List.of(ranges);
  }

  /** The range at {@code index} in key order, e.g. an index returned by {@link #lookupSorted}. */
  public RangeDescriptor get(int index) {
    return ranges[index];
  }

  /** The range with this id (the piece with the highest generation if a cache holds several). */
  public Optional<RangeDescriptor> byId(long rangeId) {
    Integer i = indexById.get(rangeId);
    return i == null ? Optional.empty() : Optional.of(ranges[i]);
  }

  /** The index of the range holding {@code key}: the greatest start {@code <=} key. O(log R). */
  public int indexOf(Key key) {
    return index.floorIndex(key);
  }

  /** The range holding {@code key}: the greatest start {@code <=} key. O(log R). */
  public RangeDescriptor lookup(Key key) {
    return ranges[index.floorIndex(key)];
  }

  /**
   * Routes a batch in one merge-walk: {@code out[j]} becomes the index of the range holding
   * {@code keys[j]}. O(R + k) for ascending keys, and better, since the walk gallops over ranges that
   * hold no key; keys out of order are still routed correctly, each by a binary search.
   */
  public void lookupSorted(Key[] keys, int[] out) {
    if (out.length < keys.length) {
      throw new IllegalArgumentException("out has " + out.length + " slots for " + keys.length + " keys");
    }
    index.floorIndices(keys, out);
  }

  /** The range indexes of {@code keys}; see {@link #lookupSorted(Key[], int[])}. */
  public int[] lookupSorted(List<Key> keys) {
    int[] out = new int[keys.size()];
    index.floorIndices(keys.toArray(new Key[0]), out);
    return out;
  }

  /** Groups a batch into runs of consecutive keys that share a range (one run per range when sorted). */
  public List<RoutedBatch> groupSorted(List<Key> keys) {
    int[] idx = lookupSorted(keys);
    List<RoutedBatch> out = new ArrayList<>();
    int from = 0;
    for (int j = 1; j <= idx.length; j++) {
      if (j == idx.length || idx[j] != idx[from]) {
        out.add(new RoutedBatch(ranges[idx[from]], keys.subList(from, j)));
        from = j;
      }
    }
    return out;
  }

  /** The pieces that exactly cover {@code [lo, hi)}, each clipped to its range, in key order. */
  public List<ScanPiece> scanPlan(Key lo, RangeEnd hi) {
    List<ScanPiece> out = new ArrayList<>();
    if (!hi.isAbove(lo)) {
      return out;
    }
    for (int i = index.floorIndex(lo); i < ranges.length && hi.isAbove(ranges[i].start()); i++) {
      RangeDescriptor r = ranges[i];
      Key pieceLo = r.start().compareTo(lo) < 0 ? lo : r.start();
      out.add(new ScanPiece(r, pieceLo, RangeEnd.min(r.end(), hi)));
    }
    return out;
  }

  /** The pieces of {@link #scanPlan} in reverse key order, for a descending scan. */
  public List<ScanPiece> scanPlanReverse(Key lo, RangeEnd hi) {
    List<ScanPiece> out = scanPlan(lo, hi);
    Collections.reverse(out);
    return out;
  }

  /**
   * Splits the range holding {@code at} into {@code [start, at)}, which keeps the range id, and
   * {@code [at, end)}, which gets {@code newRangeId}; both on the same replicas at generation old + 1.
   *
   * @throws IllegalArgumentException when {@code at} is already a boundary (the empty key included) or
   *     {@code newRangeId} is in use
   */
  public RangeMap split(Key at, long newRangeId) {
    int i = index.floorIndex(at);
    RangeDescriptor r = ranges[i];
    if (r.start().equals(at)) {
      throw new IllegalArgumentException("split key " + at + " is already a range boundary (start of " + r + ")");
    }
    if (indexById.containsKey(newRangeId)) {
      throw new IllegalArgumentException("range id " + newRangeId + " is already in use");
    }
    long generation = r.generation() + 1;
    RangeDescriptor[] next = new RangeDescriptor[ranges.length + 1];
    System.arraycopy(ranges, 0, next, 0, i);
    next[i] = r.withSpan(r.start(), RangeEnd.at(at), generation);
    next[i + 1] = new RangeDescriptor(newRangeId, at, r.end(), r.replicas(), generation);
    System.arraycopy(ranges, i + 1, next, i + 2, ranges.length - i - 1);
    return new RangeMap(next, version + 1);
  }

  /**
   * Joins range {@code leftRangeId} with its right neighbour; the left id survives with generation
   * max(both) + 1.
   *
   * @throws IllegalArgumentException when the id is unknown, the range is the last one, or the two
   *     are not co-located (different replica sets: move replicas first)
   */
  public RangeMap merge(long leftRangeId) {
    Integer boxed = indexById.get(leftRangeId);
    if (boxed == null) {
      throw new IllegalArgumentException("no range with id " + leftRangeId);
    }
    int i = boxed;
    if (i == ranges.length - 1) {
      throw new IllegalArgumentException("range " + ranges[i] + " is the last range: it has no right neighbour");
    }
    RangeDescriptor left = ranges[i];
    RangeDescriptor right = ranges[i + 1];
    if (!new HashSet<>(left.replicas()).equals(new HashSet<>(right.replicas()))) {
      throw new IllegalArgumentException("merge needs co-located replicas: " + left + " and " + right);
    }
    long generation = Math.max(left.generation(), right.generation()) + 1;
    RangeDescriptor[] next = new RangeDescriptor[ranges.length - 1];
    System.arraycopy(ranges, 0, next, 0, i);
    next[i] = left.withSpan(left.start(), right.end(), generation);
    System.arraycopy(ranges, i + 2, next, i + 1, ranges.length - i - 2);
    return new RangeMap(next, version + 1);
  }

  /**
   * Installs a fresher descriptor, e.g. one carried by a RANGE_MOVED answer. It replaces the ranges
   * it overlaps only when its generation is higher than each of theirs; otherwise it is stale (or
   * already known) and this same map is returned. Overlapped ranges that reach outside it are trimmed
   * to their outside parts, keeping their id and their old generation, so every key still routes
   * somewhere and a stale guess costs one RANGE_MOVED round trip. No key's generation goes down.
   */
  public RangeMap apply(RangeDescriptor descriptor) {
    return applyAll(List.of(descriptor));
  }

  /** Applies {@code descriptors} in ascending generation order (newer news trims older news). */
  public RangeMap applyAll(List<RangeDescriptor> descriptors) {
    List<RangeDescriptor> working = new ArrayList<>(Arrays.asList(ranges));
    if (!Tiling.applyAll(working, descriptors)) {
      return this;
    }
    return new RangeMap(working.toArray(new RangeDescriptor[0]), version + 1);
  }

  @Override
  public String toString() {
    return "RangeMap[version=" + version + ", size=" + ranges.length + "]";
  }
}
