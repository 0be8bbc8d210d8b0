package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import java.util.List;
import java.util.Objects;

/**
 * A run of consecutive keys of a batch that route to the same range.
 *
 * @param range the range the keys route to (as cached)
 * @param keys the keys, in the batch's order
 */
public record RoutedBatch(RangeDescriptor range, List<Key> keys) {

  public RoutedBatch {
    Objects.requireNonNull(range, "range");
    keys = List.copyOf(keys);
  }
}
