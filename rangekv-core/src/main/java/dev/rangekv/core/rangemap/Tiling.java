package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The tiling invariant and the list edits that keep it (docs/architecture.md, invariant 1: ranges chain from the
 * empty key to +infinity with no gap and no overlap). Package-private: {@link RangeMap} is the only
 * caller; it works on its own private copies, so nothing here is shared.
 */
final class Tiling {
  private Tiling() {}

  /** Fails with an {@link IllegalStateException} naming the broken part of the invariant. */
  static void check(List<RangeDescriptor> ranges) {
    if (ranges.isEmpty()) {
      throw new IllegalStateException("tiling invariant violated: a range map needs at least one range");
    }
    if (!ranges.get(0).start().isEmpty()) {
      throw new IllegalStateException("tiling invariant violated: the first range must start at the empty key, got "
          + ranges.get(0));
    }
    RangeDescriptor last = ranges.get(ranges.size() - 1);
    if (!last.end().isInfinite()) {
      throw new IllegalStateException("tiling invariant violated: the last range must end at +infinity, got " + last);
    }
    for (int i = 0; i + 1 < ranges.size(); i++) {
      RangeDescriptor a = ranges.get(i);
      RangeDescriptor b = ranges.get(i + 1);
      if (a.end().isInfinite() || !a.end().key().equals(b.start())) {
        throw new IllegalStateException("tiling invariant violated: each end must equal the next start, but " + a
            + " is followed by " + b + (a.end().compareTo(b.start()) < 0 ? " (gap)" : " (overlap)"));
      }
    }
  }

  /**
   * Installs {@code d} into the tiling {@code ranges} (edited in place) when it is newer than every
   * range it overlaps; returns false, leaving the list untouched, when it is not.
   *
   * <p>The rule, and why it is sound for a cache: generations strictly increase along the history of
   * every key (split: both halves old + 1; merge: max + 1; replica change: + 1), so among
   * descriptors that overlap, the higher generation is the later one. An overlapped older range is
   * trimmed to the parts outside {@code d}, keeping its id and its (now stale) generation: a key
   * there still routes somewhere, and the node answers RANGE_MOVED with fresh descriptors if that
   * guess is wrong. No key's generation ever goes down.
   */
  static boolean apply(List<RangeDescriptor> ranges, RangeDescriptor d) {
    int first = floor(ranges, d.start());
    int last = first;
    while (last + 1 < ranges.size() && d.end().isAbove(ranges.get(last + 1).start())) {
      last++;
    }
    for (int k = first; k <= last; k++) {
      if (ranges.get(k).generation() >= d.generation()) {
        return false;
      }
    }
    List<RangeDescriptor> replacement = new ArrayList<>(3);
    RangeDescriptor left = ranges.get(first);
    if (left.start().compareTo(d.start()) < 0) {
      replacement.add(left.withSpan(left.start(), RangeEnd.at(d.start()), left.generation()));
    }
    replacement.add(d);
    RangeDescriptor right = ranges.get(last);
    if (right.end().compareTo(d.end()) > 0) {
      replacement.add(right.withSpan(d.end().key(), right.end(), right.generation()));
    }
    List<RangeDescriptor> window = ranges.subList(first, last + 1);
    window.clear();
    window.addAll(replacement);
    return true;
  }

  /** Applies in ascending generation order, so newer descriptors trim older ones, never the reverse. */
  static boolean applyAll(List<RangeDescriptor> ranges, List<RangeDescriptor> descriptors) {
    List<RangeDescriptor> ordered = new ArrayList<>(descriptors);
    ordered.sort(Comparator.comparingLong(RangeDescriptor::generation));
    boolean changed = false;
    for (RangeDescriptor d : ordered) {
      changed |= apply(ranges, d);
    }
    return changed;
  }

  /** The index of the range holding {@code key} in a valid tiling. */
  static int floor(List<RangeDescriptor> ranges, Key key) {
    int lo = 0;
    int hi = ranges.size();
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (ranges.get(mid).start().compareTo(key) <= 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
