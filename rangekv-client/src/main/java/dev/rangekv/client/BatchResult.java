package dev.rangekv.client;

import java.util.Optional;

/** The outcome of an atomic batch: all applied, or none (a check failed). Immutable. */
public final class BatchResult {
  private final boolean succeeded;
  private final int failedCheckIndex;
  private final byte[] current;

  BatchResult(boolean succeeded, int failedCheckIndex, byte[] current) {
    this.succeeded = succeeded;
    this.failedCheckIndex = failedCheckIndex;
    this.current = current;
  }

  public boolean succeeded() {
    return succeeded;
  }

  /** The index of the first failed check among the batch's ops; -1 when the batch applied. */
  public int failedCheckIndex() {
    return failedCheckIndex;
  }

  /** The failed check's key's value (empty when absent or the batch applied). */
  public Optional<byte[]> current() {
    return current == null ? Optional.empty() : Optional.of(current.clone());
  }

  @Override
  public String toString() {
    return "BatchResult[succeeded=" + succeeded + ", failedCheckIndex=" + failedCheckIndex + "]";
  }
}
