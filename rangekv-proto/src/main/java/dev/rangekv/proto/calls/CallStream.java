package dev.rangekv.proto.calls;

import dev.rangekv.proto.KvCall;
import dev.rangekv.proto.KvCallResult;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * The serving side of one client's call stream ({@code KvService.Calls}): each {@link KvCall} runs
 * through the service's unary handler of the same request, and its answer goes back on the stream as
 * soon as it completes, in any order; a handler's error becomes the call's typed error. Answers that
 * complete while a write to the stream is pending go out together in one message (the answers of one
 * grouped Raft entry complete in one loop), written by one flusher at a time (a gRPC stream observer
 * is not thread-safe); nothing waits for a call, and nothing waits to fill a message.
 */
public final class CallStream implements StreamObserver<KvCalls> {
  private final KvServiceGrpc.AsyncService kv;
  private final StreamObserver<KvCallResults> out;
  private final Executor handlers;
  private final Meter meter;
  private final ConcurrentLinkedQueue<KvCallResult> answers = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean flushing = new AtomicBoolean();
  private boolean closed;

  /** Calls of one message run as one handler task up to this many: a hop per call costs more than most calls. */
  private static final int CALLS_PER_TASK = 16;
  /** Answers in one message at most. */
  private static final int ANSWERS_PER_MESSAGE = 256;

  /** Hears of every answered call, as a server interceptor hears of unary calls. Thread-safe. */
  public interface Meter {
    /**
     * @param method the full name of the call's unary twin (e.g. {@code rangekv.v1.KvService/Put})
     * @param outcome {@code OK} or the typed error's kind ({@code RANGE_MOVED}, ...)
     * @param nanos from dispatch to answer
     */
    void answered(String method, String outcome, long nanos);
  }

  private CallStream(KvServiceGrpc.AsyncService kv, StreamObserver<KvCallResults> out, Executor handlers,
      Meter meter) {
    this.kv = kv;
    this.out = out;
    this.handlers = handlers;
    this.meter = meter;
  }

  /**
   * Serves a call stream with {@code kv}'s unary handlers, answering on {@code out}. gRPC delivers one
   * stream's messages on one thread at a time, so each call's handler runs on {@code handlers}: one
   * busy client's calls use every handler thread, as its unary calls would.
   */
  public static StreamObserver<KvCalls> serve(KvServiceGrpc.AsyncService kv, StreamObserver<KvCallResults> out,
      Executor handlers) {
    return serve(kv, out, handlers, (method, outcome, nanos) -> {});
  }

  /** As {@link #serve(KvServiceGrpc.AsyncService, StreamObserver, Executor)}, telling {@code meter} of each answer. */
  public static StreamObserver<KvCalls> serve(KvServiceGrpc.AsyncService kv, StreamObserver<KvCallResults> out,
      Executor handlers, Meter meter) {
    return new CallStream(kv, out, handlers, meter);
  }

  @Override
  public void onNext(KvCalls calls) {
    List<KvCall> all = calls.getCallsList();
    for (int from = 0; from < all.size(); from += CALLS_PER_TASK) {
      List<KvCall> part = all.subList(from, Math.min(all.size(), from + CALLS_PER_TASK));
      try {
        handlers.execute(() -> part.forEach(this::dispatchOrFail));
      } catch (RejectedExecutionException e) { // the node is stopping
        for (KvCall call : part) {
          send(KvCallResult.newBuilder().setId(call.getId())
              .setError(RangeKvErrors.unavailable("node stopping", true)).build());
        }
      }
    }
  }

  /** Runs one call; a handler that throws instead of answering fails only its own call. */
  private void dispatchOrFail(KvCall call) {
    try {
      dispatch(call);
    } catch (RuntimeException e) {
      send(KvCallResult.newBuilder().setId(call.getId())
          .setError(RangeKvErrors.unavailable("unexpected " + e, false)).build());
    }
  }

  private void dispatch(KvCall call) {
    long id = call.getId();
    long start = System.nanoTime();
    switch (call.getOpCase()) {
      case GET -> kv.get(call.getGet(), answer(id, start, KvServiceGrpc.getGetMethod(), KvCallResult.Builder::setGet));
      case MULTI_GET -> kv.multiGet(call.getMultiGet(),
          answer(id, start, KvServiceGrpc.getMultiGetMethod(), KvCallResult.Builder::setMultiGet));
      case PUT -> kv.put(call.getPut(), answer(id, start, KvServiceGrpc.getPutMethod(), KvCallResult.Builder::setPut));
      case DELETE -> kv.delete(call.getDelete(),
          answer(id, start, KvServiceGrpc.getDeleteMethod(), KvCallResult.Builder::setDelete));
      case COMPARE_AND_SET -> kv.compareAndSet(call.getCompareAndSet(),
          answer(id, start, KvServiceGrpc.getCompareAndSetMethod(), KvCallResult.Builder::setCompareAndSet));
      case DELETE_RANGE -> kv.deleteRange(call.getDeleteRange(),
          answer(id, start, KvServiceGrpc.getDeleteRangeMethod(), KvCallResult.Builder::setDeleteRange));
      case BATCH -> kv.batch(call.getBatch(),
          answer(id, start, KvServiceGrpc.getBatchMethod(), KvCallResult.Builder::setBatch));
      case SCAN -> kv.scan(call.getScan(), answer(id, start, KvServiceGrpc.getScanMethod(), KvCallResult.Builder::setScan));
      case OP_NOT_SET -> send(KvCallResult.newBuilder().setId(id)
          .setError(RangeKvErrors.invalidArgument("call", "a call needs an operation")).build());
    }
  }

  /** An observer that answers call {@code id} on the stream with the handler's reply or error. */
  private <T> StreamObserver<T> answer(long id, long start, io.grpc.MethodDescriptor<?, T> method,
      BiConsumer<KvCallResult.Builder, T> set) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        KvCallResult.Builder b = KvCallResult.newBuilder().setId(id);
        set.accept(b, value);
        send(b.build());
        meter.answered(method.getFullMethodName(), "OK", System.nanoTime() - start);
      }

      @Override
      public void onError(Throwable t) {
        RangeKvError error = RangeKvErrors.fromThrowable(t)
            .orElseGet(() -> RangeKvErrors.unavailable("unexpected " + t, false));
        send(KvCallResult.newBuilder().setId(id).setError(error).build());
        meter.answered(method.getFullMethodName(), error.getKindCase().name(), System.nanoTime() - start);
      }

      @Override
      public void onCompleted() {
        // the answer went with onNext
      }
    };
  }

  /** Queues an answer; the first answer of an idle stream schedules the flusher, later ones ride along. */
  private void send(KvCallResult result) {
    answers.add(result);
    if (flushing.compareAndSet(false, true)) {
      try {
        handlers.execute(this::flush);
      } catch (RejectedExecutionException e) { // the node is stopping: answer from here
        flush();
      }
    }
  }

  /** Writes every queued answer, many to a message, until none is left. */
  private void flush() {
    do {
      KvCallResults.Builder message = KvCallResults.newBuilder();
      KvCallResult next;
      while ((next = answers.poll()) != null) {
        message.addResults(next);
        if (message.getResultsCount() == ANSWERS_PER_MESSAGE) {
          write(message.build());
          message = KvCallResults.newBuilder();
        }
      }
      if (message.getResultsCount() > 0) {
        write(message.build());
      }
      flushing.set(false);
      // an answer queued after the last poll but before the flag fell found the flusher busy
    } while (!answers.isEmpty() && flushing.compareAndSet(false, true));
  }

  private void write(KvCallResults message) {
    synchronized (this) {
      if (!closed) {
        out.onNext(message);
      }
    }
  }

  @Override
  public void onError(Throwable t) {
    synchronized (this) {
      closed = true; // the client went away: answers still in flight have nobody to go to
    }
  }

  @Override
  public void onCompleted() {
    synchronized (this) {
      if (!closed) {
        closed = true;
        out.onCompleted();
      }
    }
  }
}
