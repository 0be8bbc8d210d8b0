package dev.rangekv.proto.calls;

import dev.rangekv.proto.KvCall;
import dev.rangekv.proto.KvCallResult;
import dev.rangekv.proto.KvCallResults;
import dev.rangekv.proto.KvCalls;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

/**
 * The serving side of one client's call stream ({@code KvService.Calls}): each {@link KvCall} runs
 * through the service's unary handler of the same request, and its answer goes back on the stream as
 * soon as it completes, in any order; a handler's error becomes the call's typed error. Answers are
 * written under one lock (a gRPC stream observer is not thread-safe); nothing waits for a call.
 */
public final class CallStream implements StreamObserver<KvCalls> {
  private final KvServiceGrpc.AsyncService kv;
  private final StreamObserver<KvCallResults> out;
  private final Executor handlers;
  private final Meter meter;
  private boolean closed;

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
    for (KvCall call : calls.getCallsList()) {
      try {
        handlers.execute(() -> dispatch(call));
      } catch (java.util.concurrent.RejectedExecutionException e) { // the node is stopping
        send(KvCallResult.newBuilder().setId(call.getId())
            .setError(RangeKvErrors.unavailable("node stopping", true)).build());
      }
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

  private void send(KvCallResult result) {
    synchronized (this) {
      if (!closed) {
        out.onNext(KvCallResults.newBuilder().addResults(result).build());
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
