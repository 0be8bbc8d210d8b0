package dev.rangekv.client;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;

/**
 * An atomic batch whose keys lie in more than one range: atomicity holds only within one range. Nothing
 * was written. {@link #ranges()} names the ranges the keys span (as the client's cache knows them).
 */
public final class CrossRangeBatchException extends RangeKvException {
  private final List<RangeDescriptor> ranges;

  public CrossRangeBatchException(List<RangeDescriptor> ranges) {
    super("atomic batch spans " + ranges.size() + " ranges, atomicity holds only within one: ranges=" + ranges,
        null);
    this.ranges = List.copyOf(ranges);
  }

  public List<RangeDescriptor> ranges() {
    return ranges;
  }

  @Override
  public String code() {
    return "CROSS_RANGE_BATCH";
  }

  @Override
  public boolean isRetryable() {
    return false;
  }
}
