package dev.rangekv.meta.controller;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Objects;

/**
 * The two ranges an admin split left in the map: the split range, shortened, and its new right neighbour.
 *
 * @param left the split range as the map has it after the split
 * @param right the range starting at the left one's end
 */
public record SplitHalves(RangeDescriptor left, RangeDescriptor right) {
  public SplitHalves {
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(right, "right");
  }
}
