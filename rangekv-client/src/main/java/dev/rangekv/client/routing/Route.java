package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Optional;
import java.util.Set;

/**
 * Where one attempt goes: the range (its id and generation go into the request header), the node and
 * its address. {@link #choose} is the router's cache-hit path, pure and allocation-light.
 *
 * @param range the cached descriptor
 * @param node the node id chosen
 * @param address the node's client address, or empty when the cache knows none
 */
public record Route(RangeDescriptor range, String node, Optional<String> address) {

  /**
   * The route for {@code range} under {@code table}: the leader hint unless it failed during this call,
   * else the replicas in order ({@link ReplicaChooser}); when every replica failed, starts over.
   * Empty for a placeholder (nothing to send to: refresh).
   */
  public static Optional<Route> choose(RouteTable table, RangeDescriptor range, Set<String> failed) {
    if (CacheFold.isPlaceholder(range)) {
      return Optional.empty();
    }
    String leader = table.leader(range.rangeId());
    Optional<String> node = ReplicaChooser.next(range.replicas(), leader, failed);
    if (node.isEmpty()) {
      failed.clear(); // every replica failed once this call: start over from the leader
      node = ReplicaChooser.next(range.replicas(), leader, failed);
    }
    String n = node.orElseThrow();
    return Optional.of(new Route(range, n, Optional.ofNullable(table.addresses().get(n))));
  }
}
