package dev.rangekv.core.operator;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A planned change of one range, as PD's operators are: the range, the generation it was planned
 * against, what it is for, its steps in order, why, and when it must be done by. Immutable; progress is
 * not kept here but computed from reports ({@link #progress}), so a new meta leader can re-derive it.
 *
 * @param rangeId the range the steps are sent to (the left one of a merge)
 * @param expectedGeneration the range's generation when planned; a different one before the first step
 *     means the plan is stale
 * @param kind what it is for (priority, event kind)
 * @param steps at least one
 * @param reason the policy's explanation, logged with the operator's events
 * @param deadlineMillis when it is cancelled if not finished, on the meta leader's clock
 */
public record Operator(long rangeId, long expectedGeneration, OperatorKind kind, List<OpStep> steps,
    Explanation reason, long deadlineMillis) {

  public Operator {
    Objects.requireNonNull(kind, "kind");
    steps = List.copyOf(steps);
    Objects.requireNonNull(reason, "reason");
    if (steps.isEmpty()) {
      throw new IllegalArgumentException("operator on r" + rangeId + " without steps");
    }
  }

  /**
   * The index of the first step not finished in {@code reported} led by {@code leader}, starting at
   * {@code from} (steps finish in order, as PD checks them); {@code steps().size()} when all are.
   */
  public int progress(int from, RangeDescriptor reported, String leader) {
    int i = from;
    while (i < steps.size() && steps.get(i).isFinished(reported, leader)) {
      i++;
    }
    return i;
  }

  /** The ranges the operator holds: its own and, for a merge, the right neighbour. */
  public List<Long> rangeIds() {
    List<Long> out = new ArrayList<>(List.of(rangeId));
    for (OpStep s : steps) {
      if (s instanceof OpStep.Merge m && !out.contains(m.rightRangeId())) {
        out.add(m.rightRangeId());
      }
    }
    return out;
  }

  /**
   * The step to send instead of step {@code step} when an earlier step's effect is undone in {@code
   * reported} led by {@code leader}: a replace or removal of the leading replica goes back to the
   * transfer of leadership off it that precedes it (the leadership came back, by an election, after the
   * transfer finished; a node refuses to replace or remove itself). Otherwise {@code step} itself.
   */
  public int resume(int step, RangeDescriptor reported, String leader) {
    if (step <= 0 || step >= steps.size() || leader.isEmpty() || steps.get(step).isFinished(reported, leader)) {
      return step;
    }
    String leaving = steps.get(step) instanceof OpStep.ReplaceReplica r ? r.fromNode()
        : steps.get(step) instanceof OpStep.RemoveReplica r ? r.nodeId() : "";
    return leader.equals(leaving) && steps.get(step - 1) instanceof OpStep.TransferLeaderAway t
        && t.fromNode().equals(leaving) ? step - 1 : step;
  }

  /** The replica move this operator makes (an added replica, and the removed one if any). */
  public Optional<Move> move() {
    for (OpStep s : steps) {
      if (s instanceof OpStep.ReplaceReplica r) {
        return Optional.of(Move.of(rangeId, r.fromNode(), r.toNode(), reason));
      }
    }
    Optional<String> to = steps.stream().filter(s -> s instanceof OpStep.AddReplica)
        .map(s -> ((OpStep.AddReplica) s).nodeId()).findFirst();
    if (to.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> from = steps.stream().filter(s -> s instanceof OpStep.RemoveReplica)
        .map(s -> ((OpStep.RemoveReplica) s).nodeId()).findFirst();
    return Optional.of(new Move(rangeId, from, to.get(), reason));
  }

  @Override
  public String toString() {
    return kind.eventKind() + " r" + rangeId + "@" + expectedGeneration + " " + steps.stream().map(OpStep::describe)
        .toList() + ": " + reason;
  }
}
