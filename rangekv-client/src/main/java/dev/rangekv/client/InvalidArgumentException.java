package dev.rangekv.client;

/** The request broke a limit (e.g. {@code key.max-bytes}); nothing was written. */
public final class InvalidArgumentException extends RangeKvException {
  private final String limit;

  public InvalidArgumentException(String limit, String message, Throwable cause) {
    super(message, cause);
    this.limit = limit;
  }

  /** The limit's name as the node reported it, e.g. {@code value.max-bytes}. */
  public String limit() {
    return limit;
  }

  @Override
  public String code() {
    return "INVALID_ARGUMENT";
  }

  @Override
  public boolean isRetryable() {
    return false;
  }
}
