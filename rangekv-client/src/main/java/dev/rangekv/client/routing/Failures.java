package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.Status;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;

/** Classifies a failed gRPC call into a {@link Failure}. Stateless. */
public final class Failures {
  private Failures() {}

  /** The typed error in the trailers if present, otherwise a transport failure. */
  public static Failure classify(Throwable error) {
    Throwable t = unwrap(error);
    Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(t);
    if (typed.isPresent()) {
      return fromError(typed.get());
    }
    Status status = Status.fromThrowable(t);
    // A refused connection means the request never left this client: definitely not applied. Any other
    // transport failure (reset, deadline, cancel) may have reached the node.
    boolean neverSent = causedBy(t, ConnectException.class);
    return new Failure.Unavailable(neverSent, "transport " + status.getCode() + ": " + status.getDescription());
  }

  /** The failure named by a typed error detail. */
  public static Failure fromError(RangeKvError e) {
    return switch (e.getKindCase()) {
      case RANGE_MOVED -> {
        List<RangeDescriptor> current = new ArrayList<>();
        Map<String, String> addresses = new HashMap<>();
        for (RangeDescriptorProto p : e.getRangeMoved().getCurrentList()) {
          current.add(ProtoValues.descriptor(p));
          addAddresses(p, addresses);
        }
        yield new Failure.RangeMoved(current, addresses, e.getMessage());
      }
      case NOT_LEADER -> new Failure.NotLeader(e.getNotLeader().getLeaderNodeId(),
          e.getNotLeader().getLeaderAddress(), e.getDefinitelyNotApplied(), e.getMessage());
      case RANGE_NOT_FOUND -> new Failure.RangeNotFound(e.getMessage());
      case INVALID_ARGUMENT -> new Failure.InvalidArgument(e.getInvalidArgument().getLimit(), e.getMessage());
      case UNAVAILABLE -> new Failure.Unavailable(e.getDefinitelyNotApplied(), e.getMessage());
      case DUPLICATE_TOO_OLD -> new Failure.DuplicateTooOld(e.getMessage());
      case INTERNAL, CLUSTER_MISMATCH, KIND_NOT_SET -> new Failure.Internal(e.getDefinitelyNotApplied(), e.getMessage());
    };
  }

  /** Records the node-id to address pairs a descriptor carries (empty addresses skipped). */
  public static void addAddresses(RangeDescriptorProto p, Map<String, String> into) {
    for (ReplicaProto r : p.getReplicasList()) {
      if (!r.getAddress().isEmpty()) {
        into.put(r.getNodeId(), r.getAddress());
      }
    }
  }

  static Throwable unwrap(Throwable t) {
    Throwable e = t;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable e = t; e != null; e = e.getCause()) {
      if (type.isInstance(e)) {
        return true;
      }
      if (e.getCause() == e) {
        break;
      }
    }
    return false;
  }
}
