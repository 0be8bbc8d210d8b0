package dev.rangekv.client.routing;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.core.rangemap.RoutedBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** Groups a batch's keys by range: sorted and deduplicated, then one merge-walk over the map. Pure. */
public final class BatchPlan {
  private BatchPlan() {}

  /** The distinct keys in ascending order. */
  public static List<Key> sortedUnique(List<Key> keys) {
    return new ArrayList<>(new TreeSet<>(keys));
  }

  /** One group per range holding some of {@code sorted} (ascending, distinct), in key order. */
  public static List<RoutedBatch> group(RangeMap map, List<Key> sorted) {
    return map.groupSorted(sorted);
  }
}
