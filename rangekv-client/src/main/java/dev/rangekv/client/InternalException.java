package dev.rangekv.client;

/** A node reported an internal failure; not retried. Whether a write happened is in the message. */
public final class InternalException extends RangeKvException {
  public InternalException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "INTERNAL";
  }

  @Override
  public boolean isRetryable() {
    return false;
  }
}
