package dev.rangekv.core.operator;

/**
 * How long one attempt of a step may take before it is sent again, and how many attempts a step gets
 * before its operator is cancelled. Fast steps change only Raft configuration or leadership; slow ones
 * copy data ({@link OpStep#slow()}).
 *
 * @param fastMillis one attempt of a fast step (leadership transfer, removal, split, merge)
 * @param slowMillis one attempt of a slow step (an added replica's snapshot and catch-up)
 * @param attempts attempts per step, at least 1
 */
public record StepTimeouts(long fastMillis, long slowMillis, int attempts) {
  /** 20 s per fast attempt (a node gives a leadership transfer 10 s), 10 min per copy, 3 attempts. */
  public static final StepTimeouts DEFAULTS = new StepTimeouts(20_000, 600_000, 3);

  public StepTimeouts {
    if (fastMillis <= 0 || slowMillis <= 0 || attempts < 1) {
      throw new IllegalArgumentException("step timeouts must be positive and attempts at least 1: fastMillis="
          + fastMillis + " slowMillis=" + slowMillis + " attempts=" + attempts);
    }
  }

  /** One attempt's timeout for {@code step}. */
  public long of(OpStep step) {
    return step.slow() ? slowMillis : fastMillis;
  }

  /**
   * How long after attempt {@code attempt} (from 0) of {@code step} was sent a failed call may be sent
   * again: a tenth of a fast attempt, doubling with each attempt, never more than the attempt's timeout.
   * A node that just refused a connection is given time to come back (gRPC waits about a second
   * before it reconnects, and fails every call meanwhile), so the attempts are not all spent in a second.
   */
  public long retryDelay(OpStep step, int attempt) {
    long base = Math.max(1, fastMillis / 10);
    return Math.min(of(step), base << Math.min(attempt, 30));
  }

  /** The deadline of an operator of {@code steps} planned at {@code nowMillis}: every attempt of every step. */
  public long deadline(java.util.List<OpStep> steps, long nowMillis) {
    long total = 0;
    for (OpStep s : steps) {
      total += of(s) * attempts;
    }
    return nowMillis + total;
  }
}
