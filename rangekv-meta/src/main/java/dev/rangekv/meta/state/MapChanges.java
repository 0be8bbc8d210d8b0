package dev.rangekv.meta.state;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How a holder of the map at version {@code v} applies {@code changesSince(v)}: a full answer
 * replaces the map; otherwise every held descriptor that overlaps a changed one is dropped and the
 * changed ones are inserted. Spans, not ids, decide: a provisional remnant shares its id with the
 * real descriptor it was cut from, and an entry unchanged since {@code v} is, by construction, the
 * very entry the holder has. Removed ids are only a hint for id-indexed caches.
 */
public final class MapChanges {
  private static final Comparator<RangeDescriptor> BY_START = Comparator.comparing(RangeDescriptor::start);

  private MapChanges() {}

  /** The map after {@code changes}, in key order; {@code base} is the map at the asked version, in key order. */
  public static List<RangeDescriptor> apply(List<RangeDescriptor> base, MapDelta changes) {
    if (changes.full()) {
      return changes.ranges();
    }
    List<RangeDescriptor> changed = new ArrayList<>(changes.ranges());
    changed.sort(BY_START);
    List<RangeDescriptor> out = new ArrayList<>(base.size() + changed.size());
    int j = 0; // changed descriptors do not overlap each other: one sweep over both lists
    for (RangeDescriptor held : base) {
      while (j < changed.size() && !changed.get(j).end().isAbove(held.start())) {
        j++;
      }
      if (j == changed.size() || !held.overlaps(changed.get(j).start(), changed.get(j).end())) {
        out.add(held);
      }
    }
    out.addAll(changed);
    out.sort(BY_START);
    return List.copyOf(out);
  }
}
