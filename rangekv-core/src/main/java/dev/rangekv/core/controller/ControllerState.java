package dev.rangekv.core.controller;

import dev.rangekv.core.hotspot.MonotonicWindow;
import dev.rangekv.core.split.LoadSplitState;
import java.util.Map;
import java.util.Objects;

/**
 * What the planner carries from one tick to the next: the load-split count of each range and the
 * monotonic-key window. Immutable; losing it (a new meta leader) only delays load splits and alerts.
 *
 * @param loadSplits per range id, for ranges seen last tick
 * @param monotonic the monotonic-key detector's window
 */
public record ControllerState(Map<Long, LoadSplitState> loadSplits, MonotonicWindow monotonic) {
  /** The state of a fresh controller. */
  public static final ControllerState INITIAL = new ControllerState(Map.of(), MonotonicWindow.EMPTY);

  public ControllerState {
    loadSplits = Map.copyOf(loadSplits);
    Objects.requireNonNull(monotonic, "monotonic");
  }
}
