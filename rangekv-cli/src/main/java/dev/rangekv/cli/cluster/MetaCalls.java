package dev.rangekv.cli.cluster;

import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.ConnectException;
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
 * Calls MetaService on any node and follows the meta leader hint: a node that does not lead the meta
 * range answers NOT_LEADER with the leader's client address, and the call goes there next. Unreachable
 * nodes are skipped in turn. Mutating calls are retried only when the failure says the call did not
 * happen (a redirect, a refused connection, an error marked definitely-not-applied). Not thread-safe;
 * one per command run.
 */
public final class MetaCalls implements AutoCloseable {
  private static final int MAX_ATTEMPTS = 8;

  private final List<String> seeds;
  private final Duration timeout;
  private final Map<String, ManagedChannel> channels = new HashMap<>();
  private String leaderHint;

  public MetaCalls(List<String> seeds, Duration timeout) {
    this.seeds = List.copyOf(seeds);
    this.timeout = timeout;
  }

  /** A read (safe to retry anywhere). */
  public <R> R read(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    return call(call, true);
  }

  /** A change (split, merge, move, presplit): retried only when it definitely did not happen. */
  public <R> R change(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call) {
    return call(call, false);
  }

  private <R> R call(Function<MetaServiceGrpc.MetaServiceBlockingStub, R> call, boolean idempotent) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Deque<String> targets = new ArrayDeque<>();
    if (leaderHint != null) {
      targets.add(leaderHint);
    }
    targets.addAll(seeds);
    StatusRuntimeException last = null;
    String lastAddress = seeds.get(0);
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (targets.isEmpty()) {
        targets.addAll(seeds); // every node tried: another round after a pause (an election may be running)
        pause(attempt, deadline);
      }
      String address = targets.poll();
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        R reply = call.apply(MetaServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(left, TimeUnit.NANOSECONDS));
        leaderHint = address;
        return reply;
      } catch (StatusRuntimeException e) {
        last = e;
        lastAddress = address;
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        String hint = typed.filter(RangeKvError::hasNotLeader).map(t -> t.getNotLeader().getLeaderAddress()).orElse("");
        if (!hint.isEmpty() && !hint.equals(address)) {
          targets.addFirst(hint);
          continue;
        }
        if (!retryable(e, typed, idempotent)) {
          throw failure(e, typed, address);
        }
      }
    }
    if (last == null) {
      throw new CliException("timed out after " + timeout.toMillis() + " ms waiting for the meta range at " + seeds);
    }
    throw failure(last, RangeKvErrors.fromThrowable(last), lastAddress);
  }

  private static boolean retryable(StatusRuntimeException e, Optional<RangeKvError> typed, boolean idempotent) {
    if (typed.isPresent()) {
      RangeKvError t = typed.get();
      boolean transientKind = t.hasNotLeader() || t.hasUnavailable();
      return transientKind && (idempotent || t.getDefinitelyNotApplied());
    }
    if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
      return false;
    }
    return idempotent || refused(e);
  }

  private static boolean refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /** One line for people; the gRPC exception stays the cause for {@code --verbose}. */
  static CliException failure(StatusRuntimeException e, Optional<RangeKvError> typed, String address) {
    if (typed.isPresent()) {
      RangeKvError t = typed.get();
      if (t.hasRangeNotFound()) {
        return new CliException("unknown range " + t.getRangeNotFound().getRangeId(), e);
      }
      if (t.hasInvalidArgument()) {
        // messages read "<limit>: <text>", e.g. "range_id: unknown range 42": people need the text
        String limit = t.getInvalidArgument().getLimit() + ": ";
        String text = t.getMessage().startsWith(limit) ? t.getMessage().substring(limit.length()) : t.getMessage();
        return new CliException(text.isEmpty() ? "invalid argument " + t.getInvalidArgument().getLimit() : text, e);
      }
      if (t.hasNotLeader()) {
        return new CliException("no meta leader answered (last asked " + address + "): " + t.getMessage(), e);
      }
      String outcome = t.getDefinitelyNotApplied() ? "" : " (outcome unknown: check with 'rangekv ranges')";
      return new CliException(t.getMessage() + outcome, e);
    }
    Status s = e.getStatus();
    return switch (s.getCode()) {
      case UNAVAILABLE -> new CliException("cannot reach the cluster at " + address + " ("
          + (refused(e) ? "connection refused" : describe(s)) + ")", e);
      case DEADLINE_EXCEEDED -> new CliException("timed out waiting for " + address
          + " (outcome unknown: check with 'rangekv ranges'; raise --timeout)", e);
      case UNIMPLEMENTED -> new CliException("the node at " + address
          + " does not serve the meta API (is it a RangeKV node with a meta range?)", e);
      case NOT_FOUND -> new CliException("not found: " + describe(s), e);
      case INVALID_ARGUMENT, FAILED_PRECONDITION -> new CliException(describe(s), e);
      default -> new CliException(s.getCode() + " from " + address + ": " + describe(s), e);
    };
  }

  private static String describe(Status s) {
    return s.getDescription() == null ? s.getCode().toString() : s.getDescription();
  }

  private static void pause(int attempt, long deadline) {
    long millis = Math.min(200L * attempt, Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    try {
      Thread.sleep(millis); // a command-line retry back-off on the main thread; nothing else to wait on
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    }
  }

  private ManagedChannel channel(String address) {
    return channels.computeIfAbsent(address, a -> Grpc.newChannelBuilder(a, InsecureChannelCredentials.create())
        .maxInboundMessageSize(64 << 20)
        .build());
  }

  @Override
  public void close() {
    for (ManagedChannel c : channels.values()) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels.values()) {
      try {
        c.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
