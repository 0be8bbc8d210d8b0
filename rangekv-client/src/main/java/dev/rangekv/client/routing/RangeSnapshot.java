package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Map;

/**
 * What a {@link RangeSource} learned: descriptors (possibly overlapping, of mixed generations; the
 * cache folds them), node addresses by node id, and leader hints by range id.
 *
 * @param fromFallback the source answered from its fallback already (the nodes' own listings): the
 *     cache does not ask the fallback again when it taught nothing
 */
public record RangeSnapshot(List<RangeDescriptor> descriptors, Map<String, String> addresses, Map<Long, String> leaders,
                            boolean fromFallback) {
  public RangeSnapshot {
    descriptors = List.copyOf(descriptors);
    addresses = Map.copyOf(addresses);
    leaders = Map.copyOf(leaders);
  }

  public RangeSnapshot(List<RangeDescriptor> descriptors, Map<String, String> addresses, Map<Long, String> leaders) {
    this(descriptors, addresses, leaders, false);
  }

  /** This snapshot, marked as the fallback's answer. */
  public RangeSnapshot asFallback() {
    return new RangeSnapshot(descriptors, addresses, leaders, true);
  }
}
