package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Range descriptors between the meta map's core values and their wire form, for the edges: the Raft
 * command decoder and the snapshot ({@link MetaState}), the service adapters and the admin-call replies.
 * A wire descriptor carries each replica's client address; the map keeps them as reported (see {@link
 * ReportedRange}) and answers with them. Stateless.
 */
public final class RangeWire {
  private RangeWire() {}

  /**
   * The core form of a reported descriptor.
   *
   * @throws MalformedMetaCommandException when its span is empty or inverted
   */
  public static ReportedRange reported(RangeDescriptorProto p) {
    if (!p.getEndInfinite() && ByteString.unsignedLexicographicalComparator().compare(p.getEnd(), p.getStart()) <= 0) {
      throw new MalformedMetaCommandException("empty or inverted range r" + p.getRangeId() + " start="
          + p.getStart().toStringUtf8() + " end=" + p.getEnd().toStringUtf8());
    }
    Map<String, String> addresses = new HashMap<>();
    for (ReplicaProto r : p.getReplicasList()) {
      addresses.putIfAbsent(r.getNodeId(), r.getAddress());
    }
    try {
      return new ReportedRange(ProtoValues.descriptor(p), addresses);
    } catch (IllegalArgumentException e) {
      throw new MalformedMetaCommandException("invalid range r" + p.getRangeId() + ": " + e.getMessage());
    }
  }

  public static List<ReportedRange> reported(List<RangeDescriptorProto> ps) {
    return ps.stream().map(RangeWire::reported).toList();
  }

  public static RangeDescriptorProto proto(ReportedRange r) {
    return proto(r.descriptor(), r.addresses());
  }

  public static RangeDescriptorProto proto(RangeDescriptor d, Map<String, String> addresses) {
    return ProtoValues.descriptor(d, addresses::get);
  }

  /** {@code d} with the addresses {@code view} answers for it. */
  public static RangeDescriptorProto proto(MetaView view, RangeDescriptor d) {
    return proto(d, view.replicaAddresses(d));
  }

  public static List<RangeDescriptorProto> protos(MetaView view, List<RangeDescriptor> ds) {
    return ds.stream().map(d -> proto(view, d)).toList();
  }

  /** The wire answer of {@code changes} (leader hints are the caller's to add). */
  public static GetMapResponse.Builder changes(MetaView view, MapDelta changes) {
    return GetMapResponse.newBuilder().setVersion(changes.version()).setFull(changes.full())
        .addAllRanges(protos(view, changes.ranges())).addAllRemovedRangeIds(changes.removedRangeIds());
  }
}
