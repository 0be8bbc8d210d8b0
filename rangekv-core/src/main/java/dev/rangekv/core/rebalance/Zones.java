package dev.rangekv.core.rebalance;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Zone arithmetic for placement: how many distinct failure domains a set of replicas spans. */
final class Zones {
  private Zones() {}

  /** Distinct zones of {@code nodes}; nodes without a zone each count as their own domain. */
  static int distinct(Collection<String> nodes, Map<String, String> zoneOf) {
    Set<String> seen = new HashSet<>();
    for (String n : nodes) {
      String z = zoneOf.getOrDefault(n, "");
      seen.add(z.isEmpty() ? "node:" + n : "zone:" + z);
    }
    return seen.size();
  }
}
