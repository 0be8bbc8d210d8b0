package dev.rangekv.client;

/**
 * A write whose outcome is unknown: at least one attempt may have been applied, and no later attempt
 * with the same write id could tell (the deadline or the retry bound passed first). Distinct from a
 * definite failure: the write happened at most once, but maybe not at all. Callers that must know read
 * the key back (or design writes to be idempotent, e.g. a compare-and-set whose effect is visible).
 */
public final class AmbiguousResultException extends RangeKvException {
  public AmbiguousResultException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "AMBIGUOUS_RESULT";
  }

  @Override
  public boolean isRetryable() {
    return false;
  }
}
