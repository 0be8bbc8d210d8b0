package dev.rangekv.meta.state;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.PlacementRules;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A consistent, immutable view of the meta range's applied state on one node: the range map (always
 * tiling the keyspace), the node records, the event log and the placement rules. Speaks core's values;
 * the wire form of a descriptor (with its replicas' addresses) is {@link RangeWire}'s.
 */
public interface MetaView {
  /** Grows by one with every change to the map. */
  long mapVersion();

  /** The map's descriptors in key order; they tile the keyspace. */
  List<RangeDescriptor> ranges();

  /**
   * True when the entry for {@code rangeId} is a trimmed remnant of an older descriptor, kept so every
   * key still routes somewhere until the real successor is reported: the controller leaves it alone.
   */
  boolean provisional(long rangeId);

  /** The range holding {@code key}: the greatest start {@code <=} key. */
  RangeDescriptor lookup(Key key);

  /**
   * The range holding {@code key}, then the ranges after it that start below {@code end}, at most
   * {@code limit} (at least one) in all, in key order.
   */
  default List<RangeDescriptor> span(Key key, RangeEnd end, int limit) {
    List<RangeDescriptor> all = ranges();
    RangeDescriptor first = lookup(key);
    List<RangeDescriptor> out = new ArrayList<>();
    for (int i = all.indexOf(first); i >= 0 && i < all.size() && out.size() < Math.max(1, limit); i++) {
      RangeDescriptor r = all.get(i);
      if (!out.isEmpty() && !end.isAbove(r.start())) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  Optional<RangeDescriptor> range(long rangeId);

  /**
   * The client address of each replica's node of {@code d}, by node id, as the map answers them on the
   * wire (a replica without one is answered with {@code ""}).
   */
  Map<String, String> replicaAddresses(RangeDescriptor d);

  /** The changes since {@code sinceVersion}, or the whole map when that is 0 or too old. */
  MapDelta changesSince(long sinceVersion);

  /** Registered nodes, by node id. */
  List<NodeInfo> nodes();

  /** Kept events with seq above {@code afterSeq} (about {@code rangeId} unless 0), oldest first, at most {@code limit} (0 = all). */
  List<Event> events(long afterSeq, int limit, long rangeId);

  /** The placement rules in force, with their version. */
  default PlacementRules placementRules() {
    return PlacementRules.EMPTY;
  }
}
