package dev.rangekv.server.meta;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.AbstractStub;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
 * (invalid argument, ...) are the answer and are thrown at once. A {@link #change} is retried only when
 * the failure says it did not happen (a refused connection, an error marked definitely-not-applied), so
 * it is never applied twice. Thread-safe.
 *
 * <p>A node's locator (the constructor) gives each attempt its own timeout and tries another node after
 * any failure that is not a typed answer. A command's ({@link #forCommand}) bounds each attempt by what
 * is left of the call's deadline and reports failures other than an unreachable node at once: a person
 * is waiting.
 */
public final class MetaLocator {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
  private static final long MIN_CALL_MILLIS = 50;
  private final PeerChannels channels;
  private final Supplier<List<String>> candidates;
  private final boolean command;
  private volatile String leaderAddress = "";

  /** @param candidates client addresses of nodes to ask, looked up anew for each call */
  public MetaLocator(PeerChannels channels, Supplier<List<String>> candidates) {
    this(channels, candidates, false);
  }

  private MetaLocator(PeerChannels channels, Supplier<List<String>> candidates, boolean command) {
    this.channels = channels;
    this.candidates = candidates;
    this.command = command;
  }

  /** A locator for a command run: a call's deadline covers its retries; only unreachable nodes are retried. */
  public static MetaLocator forCommand(PeerChannels channels, List<String> seeds) {
    List<String> copy = List.copyOf(seeds);
    return new MetaLocator(channels, () -> copy, true);
  }

  /** The meta leader's client address as last seen, if any. */
  public Optional<String> leaderAddress() {
    return leaderAddress.isEmpty() ? Optional.empty() : Optional.of(leaderAddress);
  }

  /**
   * Runs {@code call} (a read, safe to repeat) against the meta leader; throws the last failure when the
   * deadline passes.
   */
  public <T> T call(Function<MetaServiceGrpc.MetaServiceBlockingStub, T> call, Duration deadline) {
    return call(MetaServiceGrpc::newBlockingStub, call, deadline, false);
  }

  /** Runs {@code call} (registration, heartbeat: safe to repeat) on the meta leader's node service. */
  public <T> T report(Function<MetaNodeServiceGrpc.MetaNodeServiceBlockingStub, T> call, Duration deadline) {
    return call(MetaNodeServiceGrpc::newBlockingStub, call, deadline, false);
  }

  /** Runs {@code call} (a change: split, merge, move, ...) on the meta leader, retried only if it did not happen. */
  public <T> T change(Function<MetaServiceGrpc.MetaServiceBlockingStub, T> call, Duration deadline) {
    return call(MetaServiceGrpc::newBlockingStub, call, deadline, true);
  }

  private <S extends AbstractStub<S>, T> T call(Function<Channel, S> stubs, Function<S, T> call, Duration deadline,
      boolean change) {
    long end = System.nanoTime() + deadline.toNanos();
    StatusRuntimeException last = null;
    for (int round = 0; ; round++) {
      for (String address : order()) {
        String target = address;
        for (int hops = 0; hops < 3 && !target.isEmpty(); hops++) {
          long left = end - System.nanoTime();
          if (command && left <= 0) {
            throw giveUp(last);
          }
          try {
            T out = call.apply(stubs.apply(channels.channel(target))
                .withDeadlineAfter(command ? left : CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS));
            leaderAddress = target;
            return out;
          } catch (StatusRuntimeException e) {
            last = e;
            Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
            String hint = typed.filter(RangeKvError::hasNotLeader).map(t -> t.getNotLeader().getLeaderAddress()).orElse("");
            boolean redirect = !hint.isEmpty() && !hint.equals(target);
            if (!redirect && !retryable(e, typed, change)) {
              throw e; // an answer (or a change that may have happened), not a routing problem
            }
            if (target.equals(leaderAddress)) {
              leaderAddress = "";
            }
            target = redirect ? hint : "";
          }
        }
      }
      long left = end - System.nanoTime();
      long pauseMillis = Math.min(1_000, 50L << Math.min(round, 5));
      if (left < 0 || command && TimeUnit.NANOSECONDS.toMillis(left) < pauseMillis + MIN_CALL_MILLIS) {
        // a command reports the failure it saw rather than a last call the deadline would cut short
        throw giveUp(last);
      }
      pause(pauseMillis);
    }
  }

  private boolean retryable(StatusRuntimeException e, Optional<RangeKvError> typed, boolean change) {
    if (typed.isPresent()) {
      RangeKvError t = typed.get();
      return (t.hasNotLeader() || t.hasUnavailable()) && (!change || t.getDefinitelyNotApplied());
    }
    if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
      return !change || refused(e);
    }
    return !change && !command;
  }

  /** True when the failure is a refused connection: the call never reached a server. */
  public static boolean refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  private static RuntimeException giveUp(StatusRuntimeException last) {
    return last != null ? last
        : new IllegalStateException("no node to reach the meta range through (no seeds and no known leader)");
  }

  private List<String> order() {
    Set<String> out = new LinkedHashSet<>();
    if (!leaderAddress.isEmpty()) {
      out.add(leaderAddress);
    }
    out.addAll(candidates.get());
    return new ArrayList<>(out);
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while looking for the meta leader", e);
    }
  }

  /**
   * Where this node looks for the meta range: its seeds, itself (a node that bootstrapped a cluster alone
   * is its own way there), then every node its replica records name (a bootstrap node restarted with no
   * seeds, whose meta voter was replaced meanwhile, finds the meta range through them).
   */
  public static List<String> candidateAddresses(List<String> seeds, String self, Collection<String> known) {
    LinkedHashSet<String> out = new LinkedHashSet<>(seeds);
    out.add(self);
    out.addAll(known);
    out.remove("");
    return List.copyOf(out);
  }
}
