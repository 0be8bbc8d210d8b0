package dev.rangekv.core.controller;

import dev.rangekv.core.operator.StepTimeouts;
import java.util.Objects;
import java.util.Set;

/**
 * What the operator planner must know beyond the snapshot.
 *
 * @param locked ranges it must leave alone: an operator holds them, or one failed on them recently
 * @param unmeasured ranges whose stats do not describe their current span (no report yet, or one from
 *     before a split or merge): nothing but repair and placement acts on them, so a stale size never
 *     splits a half again
 * @param timeouts step timeouts, for the operators' deadlines
 */
public record OperatorInputs(Set<Long> locked, Set<Long> unmeasured, StepTimeouts timeouts) {
  public static final OperatorInputs NONE = new OperatorInputs(Set.of(), Set.of(), StepTimeouts.DEFAULTS);

  public OperatorInputs {
    locked = Set.copyOf(locked);
    unmeasured = Set.copyOf(unmeasured);
    Objects.requireNonNull(timeouts, "timeouts");
  }
}
