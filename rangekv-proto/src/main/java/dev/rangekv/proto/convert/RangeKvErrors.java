package dev.rangekv.proto.convert;

import dev.rangekv.proto.ClusterMismatch;
import dev.rangekv.proto.InvalidArgument;
import dev.rangekv.proto.NotLeader;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.RangeMoved;
import dev.rangekv.proto.RangeNotFound;
import dev.rangekv.proto.Unavailable;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import java.util.List;
import java.util.Optional;

/**
 * Typed errors over gRPC: a {@link RangeKvError} travels in the trailers under {@link #TRAILER_KEY}
 * next to a status code chosen from its kind. Clients read the detail, never the message text.
 */
public final class RangeKvErrors {
  /** The trailer key of the typed error detail. */
  public static final Metadata.Key<RangeKvError> TRAILER_KEY =
      ProtoUtils.keyForProto(RangeKvError.getDefaultInstance());

  private RangeKvErrors() {}

  /**
   * The most bytes of a typed error's serialized detail put in trailers. Trailers travel base64-encoded
   * in the header list, which gRPC caps at 8 KiB: a detail listing many descriptors or 8 KiB keys would
   * fail the call with {@code HeaderListSizeException} instead of delivering the error.
   */
  public static final int MAX_DETAIL_BYTES = 3 << 10;
  /** The most characters of an error's message (trailers and status description). */
  public static final int MAX_MESSAGE_CHARS = 512;

  /** The status exception a server returns for {@code error}, cut to fit the trailers (see {@link #fitTrailers}). */
  public static StatusRuntimeException toStatusException(RangeKvError error) {
    RangeKvError small = fitTrailers(error);
    Metadata trailers = new Metadata();
    trailers.put(TRAILER_KEY, small);
    return statusOf(small).withDescription(small.getMessage()).asRuntimeException(trailers);
  }

  /**
   * {@code error} small enough for trailers whatever the key sizes and the number of descriptors: the
   * message is cut to {@link #MAX_MESSAGE_CHARS}; a {@code RangeMoved} keeps the descriptors that fit in
   * {@link #MAX_DETAIL_BYTES} (possibly none: the caller then refreshes its map from the meta range, as
   * for any descriptor it lacks).
   */
  public static RangeKvError fitTrailers(RangeKvError error) {
    if (error.getSerializedSize() <= MAX_DETAIL_BYTES && error.getMessage().length() <= MAX_MESSAGE_CHARS) {
      return error;
    }
    RangeKvError.Builder b = error.toBuilder();
    if (b.getMessage().length() > MAX_MESSAGE_CHARS) {
      String m = b.getMessage();
      b.setMessage(m.substring(0, MAX_MESSAGE_CHARS - 40) + "... (" + m.length() + " chars)");
    }
    if (b.hasRangeMoved() && b.build().getSerializedSize() > MAX_DETAIL_BYTES) {
      RangeMoved.Builder kept = RangeMoved.newBuilder();
      int size = b.clearRangeMoved().setRangeMoved(kept).build().getSerializedSize();
      for (RangeDescriptorProto d : error.getRangeMoved().getCurrentList()) {
        int grown = size + d.getSerializedSize() + 4; // tag and length varint
        if (grown > MAX_DETAIL_BYTES) {
          break;
        }
        kept.addCurrent(d);
        size = grown;
      }
      b.setRangeMoved(kept);
    }
    return b.build();
  }

  /** The typed error carried by a failed call, if any. */
  public static Optional<RangeKvError> fromThrowable(Throwable t) {
    Metadata trailers = Status.trailersFromThrowable(t);
    return trailers == null ? Optional.empty() : Optional.ofNullable(trailers.get(TRAILER_KEY));
  }

  static Status statusOf(RangeKvError error) {
    return switch (error.getKindCase()) {
      case RANGE_MOVED, DUPLICATE_TOO_OLD, CLUSTER_MISMATCH -> Status.FAILED_PRECONDITION;
      case NOT_LEADER, UNAVAILABLE -> Status.UNAVAILABLE;
      case RANGE_NOT_FOUND -> Status.NOT_FOUND;
      case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
      case INTERNAL, KIND_NOT_SET -> Status.INTERNAL;
    };
  }

  public static RangeKvError rangeMoved(List<RangeDescriptorProto> current, String message) {
    return RangeKvError.newBuilder()
        .setRangeMoved(RangeMoved.newBuilder().addAllCurrent(current))
        .setDefinitelyNotApplied(true)
        .setMessage(message)
        .build();
  }

  public static RangeKvError notLeader(
      long rangeId, String leaderNodeId, String leaderAddress, boolean definitelyNotApplied) {
    return RangeKvError.newBuilder()
        .setNotLeader(
            NotLeader.newBuilder()
                .setRangeId(rangeId)
                .setLeaderNodeId(leaderNodeId)
                .setLeaderAddress(leaderAddress))
        .setDefinitelyNotApplied(definitelyNotApplied)
        .setMessage("not leader of range " + rangeId + ", leader hint=" + leaderNodeId)
        .build();
  }

  public static RangeKvError rangeNotFound(long rangeId) {
    return RangeKvError.newBuilder()
        .setRangeNotFound(RangeNotFound.newBuilder().setRangeId(rangeId))
        .setDefinitelyNotApplied(true)
        .setMessage("range " + rangeId + " not held by this node")
        .build();
  }

  /** Bad input naming the limit it broke, e.g. {@code key.max-bytes}. */
  public static RangeKvError invalidArgument(String limit, String message) {
    return RangeKvError.newBuilder()
        .setInvalidArgument(InvalidArgument.newBuilder().setLimit(limit))
        .setDefinitelyNotApplied(true)
        .setMessage(limit + ": " + message)
        .build();
  }

  public static RangeKvError unavailable(String reason, boolean definitelyNotApplied) {
    return RangeKvError.newBuilder()
        .setUnavailable(Unavailable.newBuilder().setReason(reason))
        .setDefinitelyNotApplied(definitelyNotApplied)
        .setMessage(reason)
        .build();
  }

  /** A call from a node of cluster {@code actual} refused by a node of cluster {@code expected}. */
  public static RangeKvError clusterMismatch(String expected, String actual) {
    return RangeKvError.newBuilder()
        .setClusterMismatch(ClusterMismatch.newBuilder().setExpectedClusterId(expected).setActualClusterId(actual))
        .setDefinitelyNotApplied(true)
        .setMessage("refused: the caller belongs to cluster " + actual + ", this node to cluster " + expected)
        .build();
  }
}
