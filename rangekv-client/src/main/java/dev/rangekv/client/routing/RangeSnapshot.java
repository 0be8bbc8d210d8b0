package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Map;

/**
 * What a {@link RangeSource} learned: descriptors (possibly overlapping, of mixed generations; the
 * cache folds them), node addresses by node id, and leader hints by range id.
 */
public record RangeSnapshot(List<RangeDescriptor> descriptors, Map<String, String> addresses, Map<Long, String> leaders) {
  public RangeSnapshot {
    descriptors = List.copyOf(descriptors);
    addresses = Map.copyOf(addresses);
    leaders = Map.copyOf(leaders);
  }
}
