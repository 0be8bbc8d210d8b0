package dev.rangekv.server.dormancy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The ranges whose last dormancy visit found their group quiet and nothing to do but wait for the clock:
 * each with the group's quiet stamp at that visit ({@code RangeConsensus.quietStamp}) and the moment the
 * dormancy policy could change its mind. The ticker skips such a range while its stamp holds and that
 * moment has not come, so 10,000 quiet ranges cost a map lookup each per tick instead of a status and
 * store reads each. Used on the ticker's thread only.
 */
final class QuietRanges {
  private record Parked(long stamp, long untilMillis) {}

  private final Map<Long, Parked> parked = new HashMap<>();

  /** Whether the visit of {@code rangeId}, whose group's quiet stamp is {@code stamp} now, may be skipped. */
  boolean skips(long rangeId, long stamp, long nowMillis) {
    if (stamp == 0) {
      return false;
    }
    Parked p = parked.get(rangeId);
    return p != null && p.stamp() == stamp && nowMillis < p.untilMillis();
  }

  /** The visit found nothing to do before {@code untilMillis} while the stamp, read before it, holds. */
  void park(long rangeId, long stamp, long untilMillis) {
    if (stamp == 0) {
      parked.remove(rangeId);
    } else {
      parked.put(rangeId, new Parked(stamp, untilMillis));
    }
  }

  /** The next visit of {@code rangeId} must not be skipped. */
  void forget(long rangeId) {
    parked.remove(rangeId);
  }

  /** Forgets ranges no longer held here (keeps the map bounded by the ranges held). */
  void retain(Set<Long> held) {
    if (parked.size() > held.size()) {
      parked.keySet().retainAll(held);
    }
  }

  int size() {
    return parked.size();
  }
}
