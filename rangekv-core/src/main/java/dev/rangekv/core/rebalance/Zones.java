package dev.rangekv.core.rebalance;

import dev.rangekv.core.placement.Spread;
import java.util.Collection;
import java.util.Map;

/** Zone arithmetic for placement: how many distinct failure domains a set of replicas spans. */
final class Zones {
  private Zones() {}

  /** Distinct zones of {@code nodes}; nodes without a zone each count as their own domain. */
  static int distinct(Collection<String> nodes, Map<String, String> zoneOf) {
    return Spread.distinct(nodes, zoneOf);
  }
}
