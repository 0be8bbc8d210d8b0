package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.Objects;

/**
 * One piece of a scan plan: the span {@code [lo, hi)} of a scan that falls inside {@code range}.
 *
 * @param range the range that serves this piece (as cached when the plan was made)
 * @param lo inclusive first key of the piece, inside the range
 * @param hi exclusive end of the piece, at or below the range's end
 */
public record ScanPiece(RangeDescriptor range, Key lo, RangeEnd hi) {

  public ScanPiece {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(lo, "lo");
    Objects.requireNonNull(hi, "hi");
    if (!hi.isAbove(lo)) {
      throw new IllegalArgumentException("empty scan piece lo=" + lo + " hi=" + hi);
    }
    if (!range.containsSpan(lo, hi)) {
      throw new IllegalArgumentException("scan piece [" + lo + ", " + hi + ") outside " + range);
    }
  }
}
