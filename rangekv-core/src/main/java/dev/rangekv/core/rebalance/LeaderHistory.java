package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.RangeStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who led each range lately, as the controller's ticks saw it, so that balancing does not thrash
 * leaderships: a range whose leader changed less than {@link #COOLDOWN_MILLIS} ago is not transferred
 * again, and leadership never returns to a node that led the range less than {@link #RETURN_MILLIS}
 * ago (no A to B to A within a minute). Every transfer stalls a range's writes for a moment, so a
 * transfer that a later tick would undo costs more than the imbalance it fixes; a minute's cool-down
 * keeps balancing to at most one transfer per range per minute (BENCHMARKS.md, "Leader transfers in the
 * demo"). The return rule matters once cool-down and return window differ, or when elections changed
 * the leader in between. A range's first observed leader starts no cool-down: only an observed change
 * does. Immutable: {@link #observe} returns the next history.
 *
 * @param ranges per range id, its leaders in the order seen, each with when it was first seen
 */
public record LeaderHistory(Map<Long, List<Term>> ranges) {
  /** No balancing transfer of a range within this long of its last leader change. */
  public static final long COOLDOWN_MILLIS = 60_000;
  /** No leadership back to a node that led the range within this long. */
  public static final long RETURN_MILLIS = 60_000;
  /** Before every history: a range's first observed leader has led "forever". */
  public static final long UNKNOWN_START = Long.MIN_VALUE;

  public static final LeaderHistory EMPTY = new LeaderHistory(Map.of());

  /** One leader's term as observed: from {@code sinceMillis} until the next term's start. */
  public record Term(String leader, long sinceMillis) {}

  public LeaderHistory {
    Map<Long, List<Term>> copy = new HashMap<>();
    ranges.forEach((id, terms) -> copy.put(id, List.copyOf(terms)));
    ranges = Map.copyOf(copy);
  }

  /** The history after a tick that saw {@code current} at {@code nowMillis}; ranges not seen are forgotten. */
  public LeaderHistory observe(List<RangeStats> current, long nowMillis) {
    Map<Long, List<Term>> next = new HashMap<>();
    for (RangeStats r : current) {
      List<Term> terms = new ArrayList<>(ranges.getOrDefault(r.rangeId(), List.of()));
      String leader = r.leaderNodeId();
      if (!leader.isEmpty() && (terms.isEmpty() || !terms.get(terms.size() - 1).leader().equals(leader))) {
        terms.add(new Term(leader, terms.isEmpty() ? UNKNOWN_START : nowMillis));
      }
      // a term that ended before the return window can forbid nothing
      while (terms.size() > 1 && terms.get(1).sinceMillis() < nowMillis - RETURN_MILLIS) {
        terms.remove(0);
      }
      if (!terms.isEmpty()) {
        next.put(r.rangeId(), terms);
      }
    }
    return new LeaderHistory(next);
  }

  /** Whether balancing may move range {@code rangeId}'s leadership to {@code to} at {@code nowMillis}. */
  public boolean mayTransfer(long rangeId, String to, long nowMillis) {
    List<Term> terms = ranges.getOrDefault(rangeId, List.of());
    if (terms.isEmpty()) {
      return true;
    }
    long lastChange = terms.get(terms.size() - 1).sinceMillis();
    if (lastChange != UNKNOWN_START && nowMillis - lastChange < COOLDOWN_MILLIS) {
      return false;
    }
    for (int i = 0; i + 1 < terms.size(); i++) {
      if (terms.get(i).leader().equals(to) && nowMillis - terms.get(i + 1).sinceMillis() < RETURN_MILLIS) {
        return false;
      }
    }
    return true;
  }
}
