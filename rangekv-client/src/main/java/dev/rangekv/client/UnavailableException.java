package dev.rangekv.client;

/**
 * The cluster could not be reached or could not answer: no seed node answered a range listing, the
 * client is closed, or a node failed internally. Definite: a write did not happen.
 */
public final class UnavailableException extends RangeKvException {
  public UnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "UNAVAILABLE";
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
