package dev.rangekv.core.controller;

import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.StepTimeouts;
import java.util.HashSet;
import java.util.List;
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
 * @param running the operators running now, each with the index of its current step: the planner
 *     preempts those that cannot finish ({@link OperatorPlanner#preemption})
 */
public record OperatorInputs(Set<Long> locked, Set<Long> unmeasured, StepTimeouts timeouts, List<Running> running) {
  public static final OperatorInputs NONE = new OperatorInputs(Set.of(), Set.of(), StepTimeouts.DEFAULTS);

  /** A running operator and the index of the step it is at. */
  public record Running(Operator op, int step) {
    public Running {
      Objects.requireNonNull(op, "op");
      if (step < 0 || step > op.steps().size()) {
        throw new IllegalArgumentException("step " + step + " outside the " + op.steps().size() + " steps of " + op);
      }
    }
  }

  public OperatorInputs {
    locked = Set.copyOf(locked);
    unmeasured = Set.copyOf(unmeasured);
    Objects.requireNonNull(timeouts, "timeouts");
    running = List.copyOf(running);
  }

  /** Inputs without running operators to preempt. */
  public OperatorInputs(Set<Long> locked, Set<Long> unmeasured, StepTimeouts timeouts) {
    this(locked, unmeasured, timeouts, List.of());
  }

  /** These inputs with {@code freed} no longer locked (their operators were preempted). */
  OperatorInputs free(Set<Long> freed) {
    Set<Long> still = new HashSet<>(locked);
    still.removeAll(freed);
    return new OperatorInputs(still, unmeasured, timeouts, running);
  }
}
