package dev.rangekv.client;

/**
 * The base of every failure the client reports. {@link #code()} is stable (callers switch on it, never
 * on message text); {@link #isRetryable()} says whether issuing the same call again may succeed without
 * the caller changing anything. Messages are fixed text plus {@code key=value} context.
 */
public abstract class RangeKvException extends RuntimeException {

  protected RangeKvException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A stable upper-case code, e.g. {@code AMBIGUOUS_RESULT}. */
  public abstract String code();

  /** True when the same call may succeed if issued again. */
  public abstract boolean isRetryable();
}
