package dev.rangekv.core.controller;

import dev.rangekv.core.hotspot.MonotonicWindow;
import dev.rangekv.core.rebalance.LeaderHistory;
import dev.rangekv.core.rebalance.SmoothedLoad;
import dev.rangekv.core.split.LoadSplitState;
import java.util.Map;
import java.util.Objects;

/**
 * What the planner carries from one tick to the next: the load-split count of each range, the
 * monotonic-key window, the recent leaders of each range and its smoothed load. Immutable; losing it
 * (a new meta leader) only delays load splits and alerts, forgets leadership cool-downs and restarts
 * the smoothing.
 *
 * @param loadSplits per range id, for ranges seen last tick
 * @param monotonic the monotonic-key detector's window
 * @param leaders who led each range lately
 * @param load each range's smoothed rates, which balancing acts on
 */
public record ControllerState(Map<Long, LoadSplitState> loadSplits, MonotonicWindow monotonic, LeaderHistory leaders,
    SmoothedLoad load) {
  /** The state of a fresh controller. */
  public static final ControllerState INITIAL =
      new ControllerState(Map.of(), MonotonicWindow.EMPTY, LeaderHistory.EMPTY, SmoothedLoad.EMPTY);

  public ControllerState {
    loadSplits = Map.copyOf(loadSplits);
    Objects.requireNonNull(monotonic, "monotonic");
    Objects.requireNonNull(leaders, "leaders");
    Objects.requireNonNull(load, "load");
  }

  /** A state with no leader history and no smoothed load. */
  public ControllerState(Map<Long, LoadSplitState> loadSplits, MonotonicWindow monotonic) {
    this(loadSplits, monotonic, LeaderHistory.EMPTY, SmoothedLoad.EMPTY);
  }
}
