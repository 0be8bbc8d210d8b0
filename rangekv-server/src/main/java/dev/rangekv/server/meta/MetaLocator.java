package dev.rangekv.server.meta;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.rpc.NodeChannels;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Finds the meta range's leader and calls it: tries the last leader seen, then the candidate addresses,
 * and follows NOT_LEADER hints, until a call succeeds or the deadline passes. Other typed errors
 * (invalid argument, ...) are the answer and are thrown at once. Thread-safe.
 */
public final class MetaLocator {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
  private final NodeChannels channels;
  private final Supplier<List<String>> candidates;
  private volatile String leaderAddress = "";

  /** @param candidates client addresses of nodes to ask, looked up anew for each call */
  public MetaLocator(NodeChannels channels, Supplier<List<String>> candidates) {
    this.channels = channels;
    this.candidates = candidates;
  }

  /** The meta leader's client address as last seen, if any. */
  public Optional<String> leaderAddress() {
    return leaderAddress.isEmpty() ? Optional.empty() : Optional.of(leaderAddress);
  }

  /** Runs {@code call} against the meta leader; throws the last failure when the deadline passes. */
  public <T> T call(Function<MetaServiceGrpc.MetaServiceBlockingStub, T> call, Duration deadline) {
    long end = System.nanoTime() + deadline.toNanos();
    StatusRuntimeException last = null;
    for (int round = 0; ; round++) {
      for (String address : order()) {
        String target = address;
        for (int hops = 0; hops < 3 && !target.isEmpty(); hops++) {
          try {
            T out = call.apply(stub(target));
            leaderAddress = target;
            return out;
          } catch (StatusRuntimeException e) {
            last = e;
            Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
            if (typed.isPresent() && !typed.get().hasNotLeader() && !typed.get().hasUnavailable()) {
              throw e; // an answer, not a routing problem
            }
            String hint = typed.filter(RangeKvError::hasNotLeader).map(t -> t.getNotLeader().getLeaderAddress()).orElse("");
            if (target.equals(leaderAddress)) {
              leaderAddress = "";
            }
            target = hint.equals(target) ? "" : hint;
          }
        }
      }
      if (System.nanoTime() > end) {
        throw last != null ? last
            : new IllegalStateException("no node to reach the meta range through (no seeds and no known leader)");
      }
      pause(round);
    }
  }

  private List<String> order() {
    Set<String> out = new LinkedHashSet<>();
    if (!leaderAddress.isEmpty()) {
      out.add(leaderAddress);
    }
    out.addAll(candidates.get());
    return new ArrayList<>(out);
  }

  private MetaServiceGrpc.MetaServiceBlockingStub stub(String address) {
    return MetaServiceGrpc.newBlockingStub(channels.channel(address))
        .withDeadlineAfter(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static void pause(int round) {
    try {
      Thread.sleep(Math.min(1_000, 50L << Math.min(round, 5)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while looking for the meta leader", e);
    }
  }
}
