package dev.rangekv.core.placement;

import dev.rangekv.core.cluster.NodeStats;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Zone arithmetic: how many failure domains a set of nodes spans; a node without a zone is its own. */
public final class Spread {
  private Spread() {}

  /** Distinct failure domains of {@code nodeIds}, zones looked up in {@code zoneOf}. */
  public static int distinct(Collection<String> nodeIds, Map<String, String> zoneOf) {
    Set<String> seen = new HashSet<>();
    for (String n : nodeIds) {
      seen.add(domain(n, zoneOf.getOrDefault(n, "")));
    }
    return seen.size();
  }

  /** Distinct failure domains of {@code nodes}. */
  public static int distinctNodes(Collection<NodeStats> nodes) {
    Set<String> seen = new HashSet<>();
    nodes.forEach(n -> seen.add(domain(n.nodeId(), n.zone())));
    return seen.size();
  }

  /** The failure domain of a node: its zone, or itself when it has none. */
  public static String domain(String nodeId, String zone) {
    return zone.isEmpty() ? "node:" + nodeId : "zone:" + zone;
  }
}
