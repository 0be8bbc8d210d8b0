package dev.rangekv.meta.state;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;

/**
 * The map's changes since a version a holder has (see {@link MapChanges#apply} for how it applies them).
 *
 * @param version the map version they bring the holder to
 * @param full true when {@code ranges} is the whole map (the asked version was 0, unknown or too old)
 * @param ranges the descriptors changed or added since the asked version (all when full), in key order
 * @param removedRangeIds ids gone since the asked version and not in the map now (empty when full)
 */
public record MapDelta(long version, boolean full, List<RangeDescriptor> ranges, List<Long> removedRangeIds) {
  public MapDelta {
    ranges = List.copyOf(ranges);
    removedRangeIds = List.copyOf(removedRangeIds);
  }
}
