package dev.rangekv.core.split;

import java.util.Objects;

/**
 * A split decision and the per-range state to carry into the next tick.
 *
 * @param decision what to do (or not) with the range, and why
 * @param next the load-split state to pass in at the next tick
 */
public record SplitOutcome(SplitDecision decision, LoadSplitState next) {

  public SplitOutcome {
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(next, "next");
  }
}
