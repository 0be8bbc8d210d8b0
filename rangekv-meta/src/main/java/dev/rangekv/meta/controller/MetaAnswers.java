package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * How the meta services answer: only the meta leader serves (elsewhere {@code NOT_LEADER} with the
 * leader's node id and client address), replies complete when the proposal does, failures become
 * typed {@code RangeKvError}s.
 */
final class MetaAnswers {
  private final MetaGroup meta;

  MetaAnswers(MetaGroup meta) {
    this.meta = meta;
  }

  /** True when this node leads the meta range; otherwise answers NOT_LEADER with the hint. */
  boolean leading(StreamObserver<?> out) {
    if (meta.isLeader()) {
      return true;
    }
    out.onError(notLeader());
    return false;
  }

  StatusRuntimeException notLeader() {
    String leader = meta.leaderNodeId().orElse("");
    String address = meta.view().nodes().stream().filter(n -> n.nodeId().equals(leader))
        .map(NodeInfo::address).findFirst().orElse("");
    return RangeKvErrors.toStatusException(RangeKvErrors.notLeader(0, leader, address, true));
  }

  static StatusRuntimeException invalid(String limit, String message) {
    return RangeKvErrors.toStatusException(RangeKvErrors.invalidArgument(limit, message));
  }

  static <T> void answer(StreamObserver<T> out, T value) {
    out.onNext(value);
    out.onCompleted();
  }

  <V, T> void reply(StreamObserver<T> out, CompletableFuture<V> f, Function<V, T> map) {
    f.whenComplete((v, err) -> {
      if (err == null) {
        answer(out, map.apply(v));
      } else {
        out.onError(status(err));
      }
    });
  }

  StatusRuntimeException status(Throwable t) {
    Throwable c = Controller.unwrap(t);
    if (c instanceof StatusRuntimeException s) {
      return s;
    }
    if (c instanceof AdminRejectedException a) {
      return invalid(a.limit(), a.getMessage());
    }
    if (c instanceof RangeBusyException b) {
      return RangeKvErrors.toStatusException(RangeKvErrors.unavailable(b.getMessage(), true));
    }
    if (!meta.isLeader()) {
      return notLeader();
    }
    if (c instanceof IllegalArgumentException) {
      // e.g. the meta state refusing a malformed command (a reported map that does not tile)
      return invalid("request", c.getMessage());
    }
    String message = c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    return RangeKvErrors.toStatusException(RangeKvErrors.unavailable(message, false));
  }
}
