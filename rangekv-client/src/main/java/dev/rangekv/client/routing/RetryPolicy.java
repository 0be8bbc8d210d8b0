package dev.rangekv.client.routing;

import java.time.Duration;

/**
 * Decides what follows a failed attempt: retry (after how long, with a fresh cache or a fresh write
 * id) or give up, and how. Pure: the same inputs give the same decision; randomness comes in as a
 * value, time as the nanoseconds left before the deadline.
 *
 * <p>Rules. A write whose attempt may have applied (the node did not say {@code definitely_not_applied})
 * makes the whole call ambiguous from then on: it is retried only under the same write id (so the node
 * applies it at most once) and, if it runs out of attempts or time, ends as ambiguous, never as a
 * definite failure. While no attempt can have applied, each definite failure gets the next attempt a fresh
 * write id: the refused attempt is dead either way, and a fresh id keeps a node's reply cache (Ratis
 * caches replies by client and call id) from replaying the old refusal to the retry. Bad input and
 * internal errors are not retried.
 *
 * <p>The call's deadline is the bound. Routine churn (a leader stepping down or transferring, a
 * follower that knows no leader yet, a range still starting, a node that has not got the range yet)
 * is waited out with backoff until the deadline: it costs latency, never an error. The attempt cap
 * is only a guard (docs/architecture.md, invariant 5): retries without backoff (fresh descriptors, the first
 * leader hints) could otherwise spin on a corrupt cache or a lying node, and the cap ends that in an
 * error. When the backoff would pass the deadline, the wait shrinks to half the time left so one last
 * attempt still runs (unless less than {@code 2 * baseBackoff} is left).
 * Backoff is exponential with equal jitter ({@code cap/2 + random * cap/2}). Fresh descriptors retry at
 * once, since the news is the fix; a leader hint retries at once only for the first two attempts,
 * since a hint may name a node that just died.
 *
 * @param maxAttempts attempts per call, at least 1 (default 100: a guard, the deadline bounds a call)
 * @param baseBackoff backoff cap after the first failure; doubles per attempt
 * @param maxBackoff upper bound of the backoff cap
 */
public record RetryPolicy(int maxAttempts, Duration baseBackoff, Duration maxBackoff) {

  /** The default attempt cap: far above what backoff lets a call make before its deadline. */
  public static final int DEFAULT_MAX_ATTEMPTS = 100;

  /** 100 attempts (a guard; the deadline is the bound), backoff 10 ms doubling up to 500 ms. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(DEFAULT_MAX_ATTEMPTS, Duration.ofMillis(10), Duration.ofMillis(500));
  }

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    if (baseBackoff.isNegative() || maxBackoff.compareTo(baseBackoff) < 0) {
      throw new IllegalArgumentException("need 0 <= baseBackoff <= maxBackoff, got " + baseBackoff + ", " + maxBackoff);
    }
  }

  /** What the retry loop does next. */
  public enum Kind { RETRY, FAIL_NOT_RETRYABLE, FAIL_AMBIGUOUS, FAIL_EXHAUSTED, FAIL_DEADLINE }

  /**
   * A decision.
   *
   * @param kind retry or the way the call ends
   * @param backoffNanos wait before the next attempt (0 unless {@code RETRY})
   * @param refreshCache reload the range cache from its source before the next attempt
   * @param freshWriteId use a new request id for the next attempt (only when no attempt can have applied)
   * @param ambiguous whether some attempt so far may have applied the write
   */
  public record Decision(Kind kind, long backoffNanos, boolean refreshCache, boolean freshWriteId, boolean ambiguous) {}

  /**
   * The decision after attempt number {@code attempts} (1-based) failed with {@code failure}.
   *
   * @param ambiguousBefore whether an earlier attempt of this write may have applied
   * @param nanosLeft time left before the call's deadline
   * @param random a uniform value in [0, 1) for the jitter
   */
  public Decision decide(Failure failure, boolean write, int attempts, boolean ambiguousBefore, long nanosLeft,
      double random) {
    boolean ambiguous = write && (ambiguousBefore || !failure.definitelyNotApplied());
    boolean freshWriteId = false;
    if (failure instanceof Failure.InvalidArgument || failure instanceof Failure.Internal) {
      return end(ambiguous ? Kind.FAIL_AMBIGUOUS : Kind.FAIL_NOT_RETRYABLE, ambiguous);
    }
    if (failure instanceof Failure.DuplicateTooOld) {
      if (ambiguousBefore) {
        return end(Kind.FAIL_AMBIGUOUS, true);
      }
      // Only this attempt ever carried the id, and the node refused it without applying: a fresh id is
      // safe (the node's window moved past it because this client had many writes in flight).
      ambiguous = false;
      freshWriteId = true;
    }
    if (attempts >= maxAttempts) {
      return end(ambiguous ? Kind.FAIL_AMBIGUOUS : Kind.FAIL_EXHAUSTED, ambiguous);
    }
    boolean news = failure instanceof Failure.RangeMoved m && !m.current().isEmpty();
    boolean hint = failure instanceof Failure.NotLeader n && !n.leaderNodeId().isEmpty();
    long backoff = news || hint && attempts <= 2 ? 0 : backoffNanos(attempts, random);
    if (backoff >= nanosLeft) {
      // one last attempt inside the deadline beats giving up while the churn may already be over
      if (nanosLeft < 2 * Math.max(baseBackoff.toNanos(), 1_000_000L)) {
        return end(ambiguous ? Kind.FAIL_AMBIGUOUS : Kind.FAIL_DEADLINE, ambiguous);
      }
      backoff = nanosLeft / 2;
    }
    freshWriteId |= write && !ambiguous && failure.definitelyNotApplied();
    boolean refresh = failure instanceof Failure.RangeNotFound
        || failure instanceof Failure.RangeMoved m && m.current().isEmpty();
    return new Decision(Kind.RETRY, backoff, refresh, freshWriteId, ambiguous);
  }

  /** The backoff after {@code attempts} failures: cap = min(max, base * 2^(attempts-1)), then equal jitter. */
  public long backoffNanos(int attempts, double random) {
    long base = baseBackoff.toNanos();
    long max = maxBackoff.toNanos();
    int shift = Math.min(Math.max(attempts - 1, 0), 40);
    long cap = base > (max >> shift) ? max : Math.min(max, base << shift);
    long half = cap / 2;
    return half + (long) (random * (cap - half));
  }

  private static Decision end(Kind kind, boolean ambiguous) {
    return new Decision(kind, 0, false, false, ambiguous);
  }
}
