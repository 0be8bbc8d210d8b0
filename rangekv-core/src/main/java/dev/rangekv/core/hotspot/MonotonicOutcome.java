package dev.rangekv.core.hotspot;

import java.util.Objects;
import java.util.Optional;

/**
 * The monotonic-key detector's result for one tick.
 *
 * @param alert raised when the tail was hottest in enough of a full window
 * @param next the window to pass in at the next tick
 */
public record MonotonicOutcome(Optional<HotspotAlert.MonotonicKey> alert, MonotonicWindow next) {

  public MonotonicOutcome {
    Objects.requireNonNull(alert, "alert");
    Objects.requireNonNull(next, "next");
  }
}
