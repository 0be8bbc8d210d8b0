package dev.rangekv.client.routing;

import dev.rangekv.proto.KvCall;
import dev.rangekv.proto.KvCallResult;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.KvServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * All KV calls of this client to one node, multiplexed on one long-lived gRPC stream ({@code
 * KvService.Calls}): calls that arrive while another thread is sending go out with it in one message,
 * and answers come back as each completes. The first call of an idle client is sent at once by its
 * own thread; nothing waits to fill a batch. A broken stream fails the calls on it (outcome unknown,
 * as a broken unary call) and the next call opens a new one. Each call has its own deadline.
 * Thread-safe.
 */
final class CallMux {
  private static final int MAX_CALLS_PER_MESSAGE = 256;

  private final ManagedChannel channel;
  private final Executor callbacks;
  private final AtomicLong ids = new AtomicLong();
  private Conn conn;

  /**
   * @param callbacks completes the calls' futures: gRPC delivers one stream's answers on one thread at a
   *     time, and what callers chain on a future must not queue behind every other caller's
   */
  CallMux(ManagedChannel channel, Executor callbacks) {
    this.channel = channel;
    this.callbacks = callbacks;
  }

  /** Sends {@code call} (its id is set here); completes with its result or a gRPC status exception. */
  CompletableFuture<KvCallResult> call(KvCall.Builder call, long timeoutNanos) {
    long id = ids.incrementAndGet();
    CompletableFuture<KvCallResult> result = new CompletableFuture<>();
    Conn c = register(id, result);
    result.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((r, e) -> c.pending.remove(id));
    c.enqueue(call.setId(id).build());
    return result.handle((r, e) -> {
      if (e instanceof TimeoutException) {
        throw Status.DEADLINE_EXCEEDED.withDescription("no answer within " + timeoutNanos / 1_000_000 + " ms")
            .asRuntimeException();
      }
      if (e != null) {
        throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
      }
      return r;
    });
  }

  /** Registers a call on the live stream, opening one when there is none. */
  private synchronized Conn register(long id, CompletableFuture<KvCallResult> result) {
    if (conn == null || conn.dead) {
      conn = new Conn();
      conn.open();
    }
    conn.pending.put(id, result);
    if (conn.dead && conn.pending.remove(id) != null) { // it failed between the check and the put
      result.completeExceptionally(conn.failure.asRuntimeException()); // with its cause: a refused connect
    }
    return conn;
  }

  /** Fails the calls in flight; later calls open a new stream. */
  synchronized void close() {
    if (conn != null) {
      conn.fail(Status.UNAVAILABLE.withDescription("client closed"));
    }
  }

  /** One stream and the calls in flight on it. */
  private final class Conn implements StreamObserver<KvCallResults> {
    final Map<Long, CompletableFuture<KvCallResult>> pending = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<KvCall> queue = new ConcurrentLinkedQueue<>();
    final AtomicBoolean sending = new AtomicBoolean();
    volatile boolean dead;
    /** Why the stream failed (set before {@link #dead}); its cause tells a refused connection apart. */
    volatile Status failure;
    StreamObserver<KvCalls> requests;

    void open() {
      // answers are read on the transport thread: onNext only hands them to the callback pool
      requests = KvServiceGrpc.newStub(channel).withExecutor(Runnable::run).calls(this);
    }

    void enqueue(KvCall call) {
      queue.add(call);
      // whoever finds the stream free sends everything queued, including what others add meanwhile
      while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
        try {
          KvCalls.Builder message = KvCalls.newBuilder();
          KvCall next;
          while (message.getCallsCount() < MAX_CALLS_PER_MESSAGE && (next = queue.poll()) != null) {
            message.addCalls(next);
          }
          if (message.getCallsCount() > 0 && !dead) {
            requests.onNext(message.build());
          }
        } catch (RuntimeException e) {
          fail(Status.UNAVAILABLE.withDescription("call stream send failed: " + e).withCause(e));
        } finally {
          sending.set(false);
        }
      }
    }

    @Override
    public void onNext(KvCallResults results) {
      // one hand-off per message, not per answer: the answers of one message complete in one task
      List<KvCallResult> all = results.getResultsList();
      try {
        callbacks.execute(() -> all.forEach(this::complete));
      } catch (RejectedExecutionException e) { // the client is closing
        all.forEach(this::complete);
      }
    }

    private void complete(KvCallResult r) {
      CompletableFuture<KvCallResult> f = pending.remove(r.getId());
      if (f != null) {
        f.complete(r);
      }
    }

    @Override
    public void onError(Throwable t) {
      fail(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      fail(Status.UNAVAILABLE.withDescription("node closed the call stream"));
    }

    void fail(Status status) {
      failure = status;
      dead = true;
      List<CompletableFuture<KvCallResult>> failed = new ArrayList<>(pending.values());
      pending.clear();
      Runnable failAll = () -> failed.forEach(f -> f.completeExceptionally(status.asRuntimeException()));
      try {
        callbacks.execute(failAll); // what callers chain on a failure (retries) must not run on the transport
      } catch (RejectedExecutionException e) { // the client is closing
        failAll.run();
      }
      if (requests != null && sending.compareAndSet(false, true)) {
        try {
          requests.onError(status.asRuntimeException());
        } catch (RuntimeException e) {
          // the stream is already gone
        }
      }
    }
  }
}
