package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each range's read and write rates smoothed over the controller's ticks (an exponentially weighted
 * moving average with a half-life of {@link #HALF_LIFE_MILLIS}), for balancing: one tick's rates are
 * noisy, and balancing on them moved a leadership one tick and back the next. A range whose bounds
 * changed (a split or a merge) starts afresh from its current rates. Immutable: {@link #observe}
 * returns the next state.
 *
 * @param ranges per range id, its bounds and smoothed rates
 * @param atMillis when the last tick was observed ({@link Long#MIN_VALUE}: never)
 */
public record SmoothedLoad(Map<Long, Entry> ranges, long atMillis) {
  /** After this long, a tick's rates weigh half as much as the newest ones. */
  public static final long HALF_LIFE_MILLIS = 20_000;

  public static final SmoothedLoad EMPTY = new SmoothedLoad(Map.of(), Long.MIN_VALUE);

  /** One range's smoothed rates, valid while its bounds stay {@code start} to {@code end}. */
  public record Entry(Key start, RangeEnd end, double readQps, double writeQps) {}

  public SmoothedLoad {
    ranges = Map.copyOf(ranges);
  }

  /** The state after a tick that saw {@code current} at {@code nowMillis}; ranges not seen are forgotten. */
  public SmoothedLoad observe(List<RangeStats> current, long nowMillis) {
    double keep = atMillis == Long.MIN_VALUE ? 0
        : Math.pow(0.5, Math.max(0, nowMillis - atMillis) / (double) HALF_LIFE_MILLIS);
    Map<Long, Entry> next = new HashMap<>();
    for (RangeStats r : current) {
      Entry prev = ranges.get(r.rangeId());
      boolean same = prev != null && prev.start().equals(r.range().start()) && prev.end().equals(r.range().end());
      double read = same ? keep * prev.readQps() + (1 - keep) * r.readQps() : r.readQps();
      double write = same ? keep * prev.writeQps() + (1 - keep) * r.writeQps() : r.writeQps();
      next.put(r.rangeId(), new Entry(r.range().start(), r.range().end(), read, write));
    }
    return new SmoothedLoad(next, nowMillis);
  }

  /** {@code current} with each range's rates replaced by its smoothed ones (as they are, when unknown). */
  public List<RangeStats> apply(List<RangeStats> current) {
    List<RangeStats> out = new ArrayList<>(current.size());
    for (RangeStats r : current) {
      Entry e = ranges.get(r.rangeId());
      boolean same = e != null && e.start().equals(r.range().start()) && e.end().equals(r.range().end());
      out.add(same ? new RangeStats(r.range(), r.bytes(), r.keys(), e.readQps(), e.writeQps(), r.leaderNodeId(),
          r.sampledKeys(), r.tail()) : r);
    }
    return out;
  }
}
