package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.List;
import java.util.Optional;

/**
 * A meta view's map in its wire form, as the meta service answers it (descriptors with their replicas'
 * addresses): tests compare it with the descriptors nodes reported, field for field.
 */
public record WireView(MetaView view) {
  public static WireView wire(MetaView view) {
    return new WireView(view);
  }

  public List<RangeDescriptorProto> ranges() {
    return RangeWire.protos(view, view.ranges());
  }

  public RangeDescriptorProto lookup(ByteString key) {
    return RangeWire.proto(view, view.lookup(ProtoValues.key(key)));
  }

  public Optional<RangeDescriptorProto> range(long rangeId) {
    return view.range(rangeId).map(d -> RangeWire.proto(view, d));
  }

  public List<RangeDescriptorProto> span(ByteString key, ByteString end, boolean endInfinite, int limit) {
    return RangeWire.protos(view, view.span(ProtoValues.key(key), ProtoValues.end(end, endInfinite), limit));
  }

  public GetMapResponse changesSince(long sinceVersion) {
    return RangeWire.changes(view, view.changesSince(sinceVersion)).build();
  }
}
