package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.LeaderTransfer;
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
 * does. A planned transfer starts the cool-down too ({@link #planned}): the leader the next ticks
 * observe can lag the transfer by a tick or more (it reaches the controller in nodes' heartbeats), and
 * without that mark a tick would plan the same transfer again while the first is still under way.
 * Immutable: {@link #observe} and {@link #planned} return the next history.
 *
 * @param ranges per range id, its leaders in the order seen, each with when it was first seen
 * @param transfers per range id, when balancing last planned a transfer of its leadership
 */
public record LeaderHistory(Map<Long, List<Term>> ranges, Map<Long, Long> transfers) {
  /** No balancing transfer of a range within this long of its last leader change. */
  public static final long COOLDOWN_MILLIS = 60_000;
  /** No leadership back to a node that led the range within this long. */
  public static final long RETURN_MILLIS = 60_000;
  /** Before every history: a range's first observed leader has led "forever". */
  public static final long UNKNOWN_START = Long.MIN_VALUE;

  public static final LeaderHistory EMPTY = new LeaderHistory(Map.of(), Map.of());

  /** One leader's term as observed: from {@code sinceMillis} until the next term's start. */
  public record Term(String leader, long sinceMillis) {}

  public LeaderHistory {
    Map<Long, List<Term>> copy = new HashMap<>();
    ranges.forEach((id, terms) -> copy.put(id, List.copyOf(terms)));
    ranges = Map.copyOf(copy);
    transfers = Map.copyOf(transfers);
  }

  /** The history after a tick that saw {@code current} at {@code nowMillis}; ranges not seen are forgotten. */
  public LeaderHistory observe(List<RangeStats> current, long nowMillis) {
    Map<Long, List<Term>> next = new HashMap<>();
    Map<Long, Long> stillCooling = new HashMap<>();
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
      Long plannedAt = transfers.get(r.rangeId());
      if (plannedAt != null && nowMillis - plannedAt < COOLDOWN_MILLIS) {
        stillCooling.put(r.rangeId(), plannedAt);
      }
    }
    return new LeaderHistory(next, stillCooling);
  }

  /** The history after balancing planned {@code planned} at {@code nowMillis}: each range's cool-down starts now. */
  public LeaderHistory planned(List<LeaderTransfer> planned, long nowMillis) {
    if (planned.isEmpty()) {
      return this;
    }
    Map<Long, Long> next = new HashMap<>(transfers);
    planned.forEach(t -> next.put(t.rangeId(), nowMillis));
    return new LeaderHistory(ranges, next);
  }

  /** Whether balancing may move range {@code rangeId}'s leadership to {@code to} at {@code nowMillis}. */
  public boolean mayTransfer(long rangeId, String to, long nowMillis) {
    Long plannedAt = transfers.get(rangeId);
    if (plannedAt != null && nowMillis - plannedAt < COOLDOWN_MILLIS) {
      return false;
    }
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
