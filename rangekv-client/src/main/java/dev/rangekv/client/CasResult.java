package dev.rangekv.client;

import java.util.Optional;

/** The outcome of a compare-and-set: whether it applied and, when not, the value it found. Immutable. */
public final class CasResult {
  private final boolean succeeded;
  private final byte[] current;

  CasResult(boolean succeeded, byte[] current) {
    this.succeeded = succeeded;
    this.current = current;
  }

  public boolean succeeded() {
    return succeeded;
  }

  /** The value seen when the condition failed (empty when the key was absent or the CAS succeeded). */
  public Optional<byte[]> current() {
    return current == null ? Optional.empty() : Optional.of(current.clone());
  }

  @Override
  public String toString() {
    return "CasResult[succeeded=" + succeeded + ", currentPresent=" + (current != null) + "]";
  }
}
