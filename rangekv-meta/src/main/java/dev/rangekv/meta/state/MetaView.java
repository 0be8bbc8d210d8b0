package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.PlacementRules;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.List;
import java.util.Optional;

/**
 * A consistent, immutable view of the meta range's applied state on one node: the range map (always
 * tiling the keyspace), the node records, the event log and the placement rules.
 */
public interface MetaView {
  /** Grows by one with every change to the map. */
  long mapVersion();

  /** The map's descriptors in key order; they tile the keyspace. */
  List<RangeDescriptorProto> ranges();

  /**
   * True when the entry for {@code rangeId} is a trimmed remnant of an older descriptor, kept so every
   * key still routes somewhere until the real successor is reported: the controller leaves it alone.
   */
  boolean provisional(long rangeId);

  /** The range holding {@code key}: the greatest start {@code <=} key. */
  RangeDescriptorProto lookup(ByteString key);

  /**
   * The range holding {@code key}, then the ranges after it that start below {@code end} (any, when
   * {@code endInfinite}), at most {@code limit} (at least one) in all, in key order.
   */
  default List<RangeDescriptorProto> span(ByteString key, ByteString end, boolean endInfinite, int limit) {
    List<RangeDescriptorProto> all = ranges();
    RangeDescriptorProto first = lookup(key);
    List<RangeDescriptorProto> out = new java.util.ArrayList<>();
    for (int i = all.indexOf(first); i >= 0 && i < all.size() && out.size() < Math.max(1, limit); i++) {
      RangeDescriptorProto r = all.get(i);
      if (!out.isEmpty() && !endInfinite
          && ByteString.unsignedLexicographicalComparator().compare(r.getStart(), end) >= 0) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  Optional<RangeDescriptorProto> range(long rangeId);

  /** The changes since {@code sinceVersion}, or the whole map when that is 0 or too old. */
  GetMapResponse changesSince(long sinceVersion);

  /** Registered nodes, by node id. */
  List<NodeInfo> nodes();

  /** Kept events with seq above {@code afterSeq} (about {@code rangeId} unless 0), oldest first, at most {@code limit} (0 = all). */
  List<Event> events(long afterSeq, int limit, long rangeId);

  /** The placement rules in force, with their version. */
  default PlacementRules placementRules() {
    return PlacementRules.EMPTY;
  }
}
