package dev.rangekv.client.routing;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.DeadlineExceededException;
import dev.rangekv.client.InternalException;
import dev.rangekv.client.InvalidArgumentException;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.client.RetriesExhaustedException;
import dev.rangekv.client.UnavailableException;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.WriteId;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The retry loop: sends a {@link RangeOp} to the range and node the cache names, learns from every
 * failure (RANGE_MOVED descriptors, NOT_LEADER hints, unreachable nodes), and asks {@link RetryPolicy}
 * whether and when to try again. A shell: it owns no decision, only futures and a timer. Thread-safe;
 * each call runs one attempt at a time.
 *
 * <p>Every attempt, including one that found no route (a placeholder or a node without an address),
 * counts towards the attempt cap, so no cache content can make a call loop; the deadline bounds the
 * rest. A node that refuses without a hint (stepping down, no leader known, range still starting) is
 * skipped for the rest of the round; when every replica failed, the round starts over after a backoff
 * from a refreshed cache.
 */
public final class Router {
  // the JDK's System.Logger: the client brings no logging library (and the CLI's thin jar has none)
  private static final System.Logger log = System.getLogger(Router.class.getName());
  private final RouteCache cache;
  private final NodeChannels channels;
  private final RetryPolicy policy;
  private final ScheduledExecutorService timer;
  private final WriteIds writeIds;
  private final LongSupplier nanoClock;
  private final DoubleSupplier random;
  private final long attemptTimeoutNanos;

  public Router(RouteCache cache, NodeChannels channels, RetryPolicy policy, ScheduledExecutorService timer,
      WriteIds writeIds, Duration attemptTimeout) {
    this.cache = cache;
    this.channels = channels;
    this.policy = policy;
    this.timer = timer;
    this.writeIds = writeIds;
    this.nanoClock = System::nanoTime;
    this.random = () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble();
    this.attemptTimeoutNanos = attemptTimeout.toNanos();
  }

  public RouteCache cache() {
    return cache;
  }

  public long nanoTime() {
    return nanoClock.getAsLong();
  }

  /** Runs {@code op} until it succeeds or the policy gives up; fails with a {@link RangeKvException}. */
  public <T> CompletableFuture<T> execute(RangeOp<T> op, long deadlineNanos) {
    return execute(op, deadlineNanos, 0);
  }

  /** As {@link #execute(RangeOp, long)}, for a part of a re-planned op that already used attempts. */
  public <T> CompletableFuture<T> execute(RangeOp<T> op, long deadlineNanos, int attemptsUsed) {
    Call<T> c = new Call<>(op, deadlineNanos, attemptsUsed);
    c.result.whenComplete((v, e) -> {
      if (c.writeId != null) {
        writeIds.finish(c.writeId); // this call never sends it again: nodes may forget it
      }
    });
    attempt(c);
    return c.result;
  }

  private static final class Call<T> {
    final RangeOp<T> op;
    final long deadline;
    final CompletableFuture<T> result = new CompletableFuture<>();
    final Set<String> failedNodes = new HashSet<>();
    int attempts;
    boolean ambiguous;
    WriteId writeId;
    Failure lastFailure;
    Throwable lastError;
    Throwable refreshError;
    RangeDescriptor lastRange;
    boolean lastNewsLearnt;
    final StringBuilder trail = new StringBuilder();

    Call(RangeOp<T> op, long deadline, int attempts) {
      this.op = op;
      this.deadline = deadline;
      this.attempts = attempts;
    }
  }

  private <T> void attempt(Call<T> c) {
    try {
      attemptOrFail(c);
    } catch (RuntimeException e) {
      c.result.completeExceptionally(e);
    }
  }

  private <T> void attemptOrFail(Call<T> c) {
    long left = c.deadline - nanoClock.getAsLong();
    if (left <= 0) {
      finish(c, RetryPolicy.Kind.FAIL_DEADLINE);
      return;
    }
    RouteTable table = cache.current();
    Optional<RangeDescriptor> target = c.op.target(table.map());
    if (target.isEmpty()) {
      if (c.ambiguous) {
        finish(c, RetryPolicy.Kind.FAIL_AMBIGUOUS);
      } else {
        c.result.completeExceptionally(new ReplanException(c.attempts));
      }
      return;
    }
    RangeDescriptor range = target.get();
    Optional<Route> route = Route.choose(table, range, c.failedNodes);
    c.attempts++;
    if (route.isEmpty()) {
      onFailure(c, range, "", new Failure.RangeMoved(List.of(), Map.of(),
          "no descriptor cached for the span " + range + "; refreshing"), null);
      return;
    }
    String node = route.get().node();
    if (route.get().address().isEmpty()) {
      onFailure(c, range, node, new Failure.RangeMoved(List.of(), Map.of(),
          "no address known for node=" + node + " of " + range + "; refreshing"), null);
      return;
    }
    String address = route.get().address().get();
    if (c.op.isWrite() && c.writeId == null) {
      c.writeId = writeIds.next();
    }
    NodeCalls calls;
    CompletableFuture<T> sent;
    try {
      calls = channels.calls(address, Math.min(left, attemptTimeoutNanos));
      sent = c.op.send(calls, range, c.writeId == null ? null : writeIds.current(c.writeId));
    } catch (RuntimeException e) {
      // nothing left this client: a closed client or a bug in building the request
      c.result.completeExceptionally(new UnavailableException(
          "request not sent: " + c.op.describe() + " node=" + node + " error=" + e, e));
      return;
    }
    sent.whenComplete((value, error) -> {
      if (error == null) {
        if (!node.equals(cache.current().leader(range.rangeId()))) {
          cache.learnLeader(range.rangeId(), node, "");
        }
        if (c.trail.length() > 0 && log.isLoggable(System.Logger.Level.DEBUG)) {
          // a call that needed more than one attempt: what each attempt met and why the cache refreshed
          log.log(System.Logger.Level.DEBUG, () -> "call done op=" + c.op.describe() + " attempts=" + c.attempts
              + " trail=[" + c.trail + ", r" + range.rangeId() + "@g" + range.generation() + "/" + node + ":ok]");
        }
        c.result.complete(value);
      } else {
        onFailure(c, range, node, Failures.classify(error), Failures.unwrap(error));
      }
    });
  }

  private <T> void onFailure(Call<T> c, RangeDescriptor range, String node, Failure failure, Throwable error) {
    try {
      c.lastFailure = failure;
      c.lastError = error;
      c.lastRange = range;
      c.lastNewsLearnt = false;
      if (c.trail.length() < 2000) {
        c.trail.append(c.trail.length() == 0 ? "" : ", ").append('r').append(range.rangeId()).append("@g")
            .append(range.generation()).append('/').append(node.isEmpty() ? "-" : node).append(':')
            .append(failure.getClass().getSimpleName());
      }
      boolean refresh = false;
      if (failure instanceof Failure.RangeMoved m) {
        // a lagging replica's older news teaches nothing: ask the source for the current picture
        c.lastNewsLearnt = cache.learnMoved(m.current(), m.addresses());
        refresh = !c.lastNewsLearnt;
      } else if (failure instanceof Failure.NotLeader n && !n.leaderNodeId().isEmpty() && !n.leaderNodeId().equals(node)) {
        // the hint is fresher than this call's failure of that node (e.g. it had no group yet then)
        cache.learnLeader(range.rangeId(), n.leaderNodeId(), n.leaderAddress());
        c.failedNodes.remove(n.leaderNodeId());
        // the answering node is not the leader: if the hinted one fails too, the round moves on to the
        // other replicas instead of bouncing between these two (a hint may name a leader that hangs)
        if (!node.isEmpty()) {
          c.failedNodes.add(node);
        }
      } else if (!node.isEmpty()) {
        c.failedNodes.add(node);
        // every replica refused or failed during this call: the cached replica set may be stale
        // (a move finished), so the next round starts from the source's picture
        refresh |= c.failedNodes.containsAll(range.replicas());
      }
      // RANGE_MOVED that taught the cache nothing (a replica lagging, or a range frozen while a merge
      // runs: it names only itself and the merge target) is no fix: back off like any other wait, or
      // the attempt bound is spent in milliseconds on a state that lasts until the merge finishes
      Failure judged = failure instanceof Failure.RangeMoved m && !c.lastNewsLearnt
          ? new Failure.RangeMoved(List.of(), Map.of(), m.detail()) : failure;
      RetryPolicy.Decision d = policy.decide(judged, c.op.isWrite(), c.attempts, c.ambiguous,
          c.deadline - nanoClock.getAsLong(), random.getAsDouble());
      c.ambiguous = d.ambiguous();
      if (d.kind() != RetryPolicy.Kind.RETRY) {
        finish(c, d.kind());
        return;
      }
      if (d.freshWriteId()) {
        if (c.writeId != null) {
          writeIds.finish(c.writeId); // refused without applying: never sent again
        }
        c.writeId = writeIds.next();
      }
      long backoff = d.backoffNanos();
      if (refresh || d.refreshCache()) {
        if (c.trail.length() < 2000) {
          c.trail.append(refresh ? " refresh=" + (failure instanceof Failure.RangeMoved ? "untaught-news" : "all-replicas-failed")
              : " refresh=policy");
        }
        cache.refresh(range).whenComplete((t, e) -> {
          if (e != null) {
            c.refreshError = e;
          }
          schedule(c, backoff);
        });
      } else {
        schedule(c, backoff);
      }
    } catch (RuntimeException e) {
      c.result.completeExceptionally(e);
    }
  }

  private <T> void schedule(Call<T> c, long backoffNanos) {
    if (backoffNanos <= 0) {
      attempt(c);
      return;
    }
    try {
      timer.schedule(() -> attempt(c), backoffNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      c.result.completeExceptionally(new UnavailableException("client closed: " + c.op.describe(), e));
    }
  }

  private <T> void finish(Call<T> c, RetryPolicy.Kind kind) {
    String context = c.op.describe() + " attempts=" + c.attempts + " range=" + c.lastRange
        + " last=" + (c.lastFailure == null ? "none" : c.lastFailure.getClass().getSimpleName() + ": " + c.lastFailure.detail())
        + (c.lastFailure instanceof Failure.RangeMoved m
            ? " news=" + m.current() + " newsLearnt=" + c.lastNewsLearnt + " cachedNow=" + c.op.target(cache.current().map())
            : "")
        + " trail=[" + c.trail + "]";
    Throwable cause = c.lastError;
    RangeKvException e;
    if (c.ambiguous) {
      e = new AmbiguousResultException("write outcome unknown, applied at most once: " + context, cause);
    } else {
      e = switch (kind) {
        case FAIL_EXHAUSTED -> new RetriesExhaustedException("retry bound reached: " + context, c.attempts, cause);
        case FAIL_DEADLINE -> new DeadlineExceededException("deadline passed: " + context, cause);
        case FAIL_NOT_RETRYABLE -> c.lastFailure instanceof Failure.InvalidArgument ia
            ? new InvalidArgumentException(ia.limit(), "invalid argument: limit=" + ia.limit() + " " + context, cause)
            : new InternalException("node failed internally: " + context, cause);
        case FAIL_AMBIGUOUS -> new AmbiguousResultException("write outcome unknown, applied at most once: " + context, cause);
        case RETRY -> throw new IllegalStateException("finish called for a retry decision");
      };
    }
    if (c.refreshError != null) {
      e.addSuppressed(c.refreshError);
    }
    c.result.completeExceptionally(e);
  }
}
