package dev.rangekv.client;

/** The call's deadline passed before any attempt succeeded; a write did definitely not happen. */
public final class DeadlineExceededException extends RangeKvException {
  public DeadlineExceededException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "DEADLINE_EXCEEDED";
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
