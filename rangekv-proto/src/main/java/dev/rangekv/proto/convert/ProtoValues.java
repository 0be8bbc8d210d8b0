package dev.rangekv.proto.convert;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Conversions between protobuf messages and core values. Stateless and thread-safe. */
public final class ProtoValues {
  private ProtoValues() {}

  public static Key key(ByteString bytes) {
    return Key.of(bytes.toByteArray());
  }

  public static ByteString bytes(Key key) {
    return UnsafeByteOperations.unsafeWrap(key.toByteArray());
  }

  /** The end bound encoded as {@code (bytes, infinite)}. */
  public static RangeEnd end(ByteString end, boolean infinite) {
    return infinite ? RangeEnd.INFINITY : RangeEnd.at(key(end));
  }

  public static ByteString endBytes(RangeEnd end) {
    return end.isInfinite() ? ByteString.EMPTY : bytes(end.key());
  }

  /** A core descriptor; node addresses are dropped (see {@link #addresses}). */
  public static RangeDescriptor descriptor(RangeDescriptorProto p) {
    List<String> replicas = new ArrayList<>(p.getReplicasCount());
    for (ReplicaProto r : p.getReplicasList()) {
      replicas.add(r.getNodeId());
    }
    return new RangeDescriptor(
        p.getRangeId(), key(p.getStart()), end(p.getEnd(), p.getEndInfinite()), replicas, p.getGeneration());
  }

  /** The descriptor with each replica's client address looked up by node id ("" when unknown). */
  public static RangeDescriptorProto descriptor(RangeDescriptor d, Function<String, String> addressOf) {
    RangeDescriptorProto.Builder b =
        RangeDescriptorProto.newBuilder()
            .setRangeId(d.rangeId())
            .setStart(bytes(d.start()))
            .setEnd(endBytes(d.end()))
            .setEndInfinite(d.end().isInfinite())
            .setGeneration(d.generation());
    for (String node : d.replicas()) {
      String address = addressOf.apply(node);
      b.addReplicas(ReplicaProto.newBuilder().setNodeId(node).setAddress(address == null ? "" : address));
    }
    return b.build();
  }

  /** Node id to client address pairs carried by a descriptor. */
  public static List<ReplicaProto> addresses(RangeDescriptorProto p) {
    return List.copyOf(p.getReplicasList());
  }
}
