package dev.rangekv.server.stats;

import java.util.Map;
import java.util.Optional;

/**
 * What a node recorded between two drains: the interval's length and the ranges that saw load (a range
 * absent from the map saw none).
 *
 * @param intervalNanos time since the previous drain (or since the recorder started)
 * @param ranges by range id
 */
public record LoadInterval(long intervalNanos, Map<Long, RangeLoadInterval> ranges) {
  public LoadInterval {
    ranges = Map.copyOf(ranges);
    if (intervalNanos < 0) {
      throw new IllegalArgumentException("negative interval " + intervalNanos);
    }
  }

  public Optional<RangeLoadInterval> range(long rangeId) {
    return Optional.ofNullable(ranges.get(rangeId));
  }

  /** Per second over this interval; 0 for an empty interval. */
  public double rate(long count) {
    return intervalNanos == 0 ? 0 : count * 1e9 / intervalNanos;
  }
}
