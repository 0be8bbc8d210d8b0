package dev.rangekv.core.cluster;

/** A placement rule that is malformed in itself (bad syntax, replica count, contradicting constraints). */
public final class InvalidRuleException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidRuleException(String message) {
    super(message);
  }
}
