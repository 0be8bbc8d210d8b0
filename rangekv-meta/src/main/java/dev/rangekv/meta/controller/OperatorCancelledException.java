package dev.rangekv.meta.controller;

import dev.rangekv.core.operator.Operator;

/**
 * An admin call whose operator was cancelled (a step out of attempts, its deadline passed, the range
 * changed or vanished, the meta leadership lost); the message says which and why. What finished before
 * stays done; the range is left fully replicated. Answered as {@code UNAVAILABLE}.
 */
public final class OperatorCancelledException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  OperatorCancelledException(Operator op, String reason) {
    super(op.kind().eventKind() + " of r" + op.rangeId() + " was cancelled: " + reason);
  }
}
