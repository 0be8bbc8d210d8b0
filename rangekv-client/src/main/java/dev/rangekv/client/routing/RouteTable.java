package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One immutable state of the client's routing cache: the range map, node addresses and leader hints.
 * Updates return a new table (the old one stays valid for whoever holds it), so readers never lock.
 *
 * @param map the cached tiling; placeholders mark spans nobody described yet
 * @param addresses client address by node id
 * @param leaders last known leader node id by range id
 */
public record RouteTable(RangeMap map, Map<String, String> addresses, Map<Long, String> leaders) {

  public RouteTable {
    addresses = Map.copyOf(addresses);
    leaders = Map.copyOf(leaders);
  }

  /** A table that knows nothing: one placeholder over the whole keyspace. */
  public static RouteTable empty() {
    return new RouteTable(CacheFold.fold(List.of(), List.of()), Map.of(), Map.of());
  }

  /** The leader hint of {@code rangeId}, empty when unknown. */
  public String leader(long rangeId) {
    return leaders.getOrDefault(rangeId, "");
  }

  /** Folds a source's snapshot into this table (generations decide; see {@link CacheFold}). */
  public RouteTable withSnapshot(RangeSnapshot s) {
    List<RangeDescriptor> known = new ArrayList<>();
    for (RangeDescriptor d : map.ranges()) {
      if (!CacheFold.isPlaceholder(d)) {
        known.add(d);
      }
    }
    Map<String, String> addr = new HashMap<>(addresses);
    addr.putAll(s.addresses());
    Map<Long, String> lead = new HashMap<>(leaders);
    lead.putAll(s.leaders());
    return new RouteTable(CacheFold.fold(known, s.descriptors()), addr, lead);
  }

  /**
   * Installs descriptors from a RANGE_MOVED answer through {@link RangeMap#applyAll}: each replaces what
   * it overlaps only when newer than all of it, so a lagging replica's older news never evicts newer
   * entries. Returns this same table when nothing was learned.
   */
  public RouteTable withMoved(List<RangeDescriptor> current, Map<String, String> newAddresses) {
    RangeMap next = map.applyAll(current);
    boolean newAddress = !newAddresses.isEmpty() && !addresses.entrySet().containsAll(newAddresses.entrySet());
    if (next == map && !newAddress) {
      return this;
    }
    Map<String, String> addr = new HashMap<>(addresses);
    addr.putAll(newAddresses);
    return new RouteTable(next, addr, leaders);
  }

  /** Records a leader hint (and its address, when given). Returns this table when nothing changes. */
  public RouteTable withLeader(long rangeId, String nodeId, String address) {
    boolean sameLeader = nodeId.equals(leaders.get(rangeId));
    boolean sameAddress = address.isEmpty() || address.equals(addresses.get(nodeId));
    if (sameLeader && sameAddress) {
      return this;
    }
    Map<Long, String> lead = new HashMap<>(leaders);
    lead.put(rangeId, nodeId);
    Map<String, String> addr = addresses;
    if (!sameAddress) {
      addr = new HashMap<>(addresses);
      addr.put(nodeId, address);
    }
    return new RouteTable(map, addr, lead);
  }
}
