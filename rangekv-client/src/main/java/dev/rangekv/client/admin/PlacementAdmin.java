package dev.rangekv.client.admin;

import dev.rangekv.client.InvalidArgumentException;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.client.UnavailableException;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.cluster.PlacementRules;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.ListPlacementRequest;
import dev.rangekv.proto.ListPlacementResponse;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.RemovePlacementRequest;
import dev.rangekv.proto.RemovePlacementResponse;
import dev.rangekv.proto.SetPlacementRequest;
import dev.rangekv.proto.SetPlacementResponse;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Placement rules through the Java admin API: set, list and remove, answered by the meta range's
 * leader. A call starts at the seeds and follows {@code NOT_LEADER} hints (at most 10 hops); a change
 * is retried only when it definitely did not happen. Failures are {@link RangeKvException}s: {@link
 * InvalidArgumentException} for a malformed or refused rule (the message says why), {@link
 * UnavailableException} when no meta leader answered. Blocking calls, each bounded by the timeout;
 * thread-safe; close it to release its channels.
 */
public final class PlacementAdmin implements AutoCloseable {
  private static final int MAX_HOPS = 10;
  private final List<String> seeds;
  private final Duration timeout;
  private final Map<String, ManagedChannel> channels = new HashMap<>();

  private PlacementAdmin(List<String> seeds, Duration timeout) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("no seed address");
    }
    this.seeds = List.copyOf(seeds);
    this.timeout = timeout;
  }

  /** An admin over the cluster reachable at {@code seeds} (client addresses, host:port), each call within {@code timeout}. */
  public static PlacementAdmin connect(List<String> seeds, Duration timeout) {
    return new PlacementAdmin(seeds, timeout);
  }

  /** Sets {@code rule} (replacing the rule of the same span); refused rules throw {@link InvalidArgumentException}. */
  public SetPlacementResult set(PlacementRule rule) {
    SetPlacementResponse r = call(s -> s.setPlacement(SetPlacementRequest.newBuilder()
        .setRule(PlacementProtos.proto(rule.withVersion(0))).build()));
    return new SetPlacementResult(PlacementProtos.rule(r.getRule()), r.getVersion(), r.getWarning());
  }

  /** The rules in force with their version. */
  public PlacementRules list() {
    ListPlacementResponse r = call(s -> s.listPlacement(ListPlacementRequest.getDefaultInstance()));
    return PlacementProtos.rules(r.getVersion(), r.getRulesList());
  }

  /** Removes the rule of exactly {@code [start, end)}; throws {@link InvalidArgumentException} when there is none. */
  public PlacementRule remove(Key start, RangeEnd end) {
    RemovePlacementResponse r = call(s -> s.removePlacement(RemovePlacementRequest.newBuilder()
        .setStart(ProtoValues.bytes(start)).setEnd(ProtoValues.endBytes(end)).setEndInfinite(end.isInfinite()).build()));
    return PlacementProtos.rule(r.getRemoved());
  }

  private <R> R call(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    Deque<String> next = new ArrayDeque<>(seeds);
    StatusRuntimeException last = null;
    for (int hop = 0; hop < MAX_HOPS && !next.isEmpty(); hop++) {
      String address = next.poll();
      try {
        return call.apply(MetaServiceGrpc.newBlockingStub(channel(address))
            .withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS));
      } catch (StatusRuntimeException e) {
        last = e;
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        if (typed.isPresent() && typed.get().hasNotLeader()) {
          String hint = typed.get().getNotLeader().getLeaderAddress();
          if (!hint.isEmpty()) {
            next.addFirst(hint);
          }
          continue;
        }
        if (typed.isPresent() && typed.get().hasInvalidArgument()) {
          throw new InvalidArgumentException(typed.get().getInvalidArgument().getLimit(), typed.get().getMessage(), e);
        }
        if (typed.isEmpty() && e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
          continue; // not reachable: the call never got there
        }
        throw new UnavailableException("meta call failed at " + address + ": " + e.getStatus(), e);
      }
    }
    throw new UnavailableException("no meta leader answered (seeds " + seeds + ")", last);
  }

  private synchronized ManagedChannel channel(String address) {
    return channels.computeIfAbsent(address, a -> Grpc.newChannelBuilder(a, InsecureChannelCredentials.create()).build());
  }

  @Override
  public synchronized void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
