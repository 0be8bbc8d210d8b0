package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.List;
import java.util.Objects;

/**
 * One range: its id, the span {@code [start, end)} it owns, the nodes holding its replicas, and its
 * generation, which every split, merge and replica change bumps.
 *
 * @param rangeId stable identity of the range (a split gives the right half a new id)
 * @param start inclusive first key
 * @param end exclusive end, {@link RangeEnd#INFINITY} for the last range
 * @param replicas ids of the nodes holding a replica, in placement order
 * @param generation bumped on every change of span or replicas; never goes down
 */
public record RangeDescriptor(long rangeId, Key start, RangeEnd end, List<String> replicas, long generation) {

  public RangeDescriptor {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    replicas = List.copyOf(replicas);
    if (!end.isAbove(start)) {
      throw new IllegalArgumentException("empty range: start=" + start + " end=" + end);
    }
    if (generation < 0) {
      throw new IllegalArgumentException("negative generation " + generation);
    }
  }

  /** True when {@code key} lies in {@code [start, end)}. */
  public boolean contains(Key key) {
    return start.compareTo(key) <= 0 && end.isAbove(key);
  }

  /** True when the span {@code [lo, hi)} lies entirely inside this range. */
  public boolean containsSpan(Key lo, RangeEnd hi) {
    return start.compareTo(lo) <= 0 && end.compareTo(hi) >= 0;
  }

  /** True when {@code [lo, hi)} and this range share at least one key. */
  public boolean overlaps(Key lo, RangeEnd hi) {
    return end.isAbove(lo) && hi.isAbove(start);
  }

  public RangeDescriptor withSpan(Key newStart, RangeEnd newEnd, long newGeneration) {
    return new RangeDescriptor(rangeId, newStart, newEnd, replicas, newGeneration);
  }

  public RangeDescriptor withReplicas(List<String> newReplicas, long newGeneration) {
    return new RangeDescriptor(rangeId, start, end, newReplicas, newGeneration);
  }

  @Override
  public String toString() {
    return "r" + rangeId + "[" + start + ", " + end + ")@g" + generation + replicas;
  }
}
