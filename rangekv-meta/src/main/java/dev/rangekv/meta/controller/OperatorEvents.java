package dev.rangekv.meta.controller;


import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Figure;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.key.KeyText;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MetaView;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The events of operators: one when an operator finishes (its kind's event: {@code "split"},
 * {@code "merge"}, {@code "move"}, {@code "repair"}, {@code "leader-transfer"}, with the policy's
 * explanation and a one-line summary), and a {@code "failed"} one when it is cancelled, whose reason
 * names the operator's kind and why it was given up. Pure given the meta view.
 */
final class OperatorEvents {
  private OperatorEvents() {}

  /** The event of {@code op}, finished now, as the meta view shows its ranges. */
  static Event finished(Operator op, MetaView view, long nowMillis) {
    List<Long> ids = new ArrayList<>(List.of(op.rangeId()));
    String detail;
    List<Figure> extra = new ArrayList<>();
    OpStep first = op.steps().get(0);
    if (first instanceof OpStep.SplitAt s) {
      Optional<RangeDescriptor> right = rightHalf(op.rangeId(), view);
      String at = s.key().map(KeyText::render)
          .orElseGet(() -> right.map(r -> KeyText.render(r.start()) + " (midpoint)").orElse("?"));
      right.ifPresent(r -> ids.add(r.rangeId()));
      detail = "r" + op.rangeId() + " split at " + at + " -> r" + op.rangeId()
          + right.map(r -> ", r" + r.rangeId()).orElse("");
      extra.add(SplitHistory.causeFigure(s.cause()));
    } else if (first instanceof OpStep.Merge m) {
      ids.add(m.rightRangeId());
      detail = "r" + op.rangeId() + " + r" + m.rightRangeId() + " -> r" + op.rangeId();
    } else if (first instanceof OpStep.TransferLeader t) {
      detail = "r" + op.rangeId() + " leader " + t.fromNode() + " -> " + t.toNode();
    } else {
      detail = moveDetail(op, view);
    }
    return EventRecorder.event(op.kind().eventKind(), ids, op.reason(), detail, nowMillis).plusFigures(extra);
  }

  private static String moveDetail(Operator op, MetaView view) {
    long id = op.rangeId();
    Optional<Move> m = op.move();
    if (m.isEmpty()) {
      String node = ((OpStep.RemoveReplica) op.steps().get(0)).nodeId();
      return "r" + id + " replica on " + node + " dropped";
    }
    String to = m.get().toNode();
    if (m.get().fromNode().isEmpty()) {
      return "r" + id + " replica added on " + to;
    }
    String from = m.get().fromNode().get();
    boolean viaTransfer = op.steps().stream().anyMatch(s -> s instanceof OpStep.TransferLeaderAway);
    if (!viaTransfer) {
      return "r" + id + " replica re-created on " + to + " for dead " + from;
    }
    return "r" + id + " moved " + from + " -> " + to + (op.kind().isAdmin() ? " (admin)" : "")
        + (op.kind() == OperatorKind.COLOCATE ? " to co-locate for a merge" : "");
  }

  /** After a split of {@code rangeId}: the range starting at its end. */
  static Optional<RangeDescriptor> rightHalf(long rangeId, MetaView view) {
    Optional<RangeDescriptor> left = view.range(rangeId);
    if (left.isEmpty() || left.get().end().isInfinite()) {
      return Optional.empty();
    }
    return Optional.of(view.lookup(left.get().end().key()));
  }

  /** The {@code "failed"} event of {@code op}, cancelled for {@code reason}. */
  static Event cancelled(Operator op, String reason, long nowMillis) {
    return EventRecorder.event("failed", op.rangeIds(), op.reason(), op.kind().eventKind() + " of " + op.rangeIds()
        + " was wanted because: " + op.reason(), nowMillis).withReason(op.kind().eventKind() + " failed: " + reason);
  }
}
