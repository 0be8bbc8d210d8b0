package dev.rangekv.proto.convert;

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

  /** The status exception a server returns for {@code error}. */
  public static StatusRuntimeException toStatusException(RangeKvError error) {
    Metadata trailers = new Metadata();
    trailers.put(TRAILER_KEY, error);
    return statusOf(error).withDescription(error.getMessage()).asRuntimeException(trailers);
  }

  /** The typed error carried by a failed call, if any. */
  public static Optional<RangeKvError> fromThrowable(Throwable t) {
    Metadata trailers = Status.trailersFromThrowable(t);
    return trailers == null ? Optional.empty() : Optional.ofNullable(trailers.get(TRAILER_KEY));
  }

  static Status statusOf(RangeKvError error) {
    return switch (error.getKindCase()) {
      case RANGE_MOVED, DUPLICATE_TOO_OLD -> Status.FAILED_PRECONDITION;
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
}
