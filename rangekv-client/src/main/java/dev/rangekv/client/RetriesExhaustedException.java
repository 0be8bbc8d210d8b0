package dev.rangekv.client;

/**
 * The retry bound was reached with every attempt a definite failure (a write did not happen): e.g. a
 * cache that keeps routing to nodes that refuse, or a cluster without a leader for the range. The
 * cause is the last attempt's failure.
 */
public final class RetriesExhaustedException extends RangeKvException {
  private final int attempts;

  public RetriesExhaustedException(String message, int attempts, Throwable cause) {
    super(message, cause);
    this.attempts = attempts;
  }

  public int attempts() {
    return attempts;
  }

  @Override
  public String code() {
    return "RETRIES_EXHAUSTED";
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
