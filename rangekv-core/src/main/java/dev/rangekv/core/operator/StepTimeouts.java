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
  /** 20 s per fast attempt (Ratis gives a leadership transfer 10 s), 10 min per copy, 3 attempts. */
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

  /** The deadline of an operator of {@code steps} planned at {@code nowMillis}: every attempt of every step. */
  public long deadline(java.util.List<OpStep> steps, long nowMillis) {
    long total = 0;
    for (OpStep s : steps) {
      total += of(s) * attempts;
    }
    return nowMillis + total;
  }
}
