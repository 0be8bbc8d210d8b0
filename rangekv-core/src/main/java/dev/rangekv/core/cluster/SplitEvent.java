package dev.rangekv.core.cluster;

import java.util.Objects;

/**
 * A split that happened, as the meta range's event log recorded it.
 *
 * @param leftRangeId the range that was split (it keeps its id for the left half)
 * @param rightRangeId the new right half
 * @param cause why it was split
 * @param atMillis when, on the controller's clock
 */
public record SplitEvent(long leftRangeId, long rightRangeId, SplitCause cause, long atMillis) {

  public SplitEvent {
    Objects.requireNonNull(cause, "cause");
    if (leftRangeId == rightRangeId) {
      throw new IllegalArgumentException("a split has two different range ids, got " + leftRangeId);
    }
  }

  /** True when {@code rangeId} is one of the two halves. */
  public boolean involves(long rangeId) {
    return leftRangeId == rangeId || rightRangeId == rangeId;
  }

  /** True when the split is younger than {@code cooldownMillis} at {@code nowMillis}. */
  public boolean isRecent(long nowMillis, long cooldownMillis) {
    return nowMillis - atMillis < cooldownMillis;
  }
}
