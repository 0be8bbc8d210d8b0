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
  private boolean closed;

  private CallStream(KvServiceGrpc.AsyncService kv, StreamObserver<KvCallResults> out, Executor handlers) {
    this.kv = kv;
    this.out = out;
    this.handlers = handlers;
  }

  /**
   * Serves a call stream with {@code kv}'s unary handlers, answering on {@code out}. gRPC delivers one
   * stream's messages on one thread at a time, so each call's handler runs on {@code handlers}: one
   * busy client's calls use every handler thread, as its unary calls would.
   */
  public static StreamObserver<KvCalls> serve(KvServiceGrpc.AsyncService kv, StreamObserver<KvCallResults> out,
      Executor handlers) {
    return new CallStream(kv, out, handlers);
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
    switch (call.getOpCase()) {
      case GET -> kv.get(call.getGet(), answer(id, KvCallResult.Builder::setGet));
      case MULTI_GET -> kv.multiGet(call.getMultiGet(), answer(id, KvCallResult.Builder::setMultiGet));
      case PUT -> kv.put(call.getPut(), answer(id, KvCallResult.Builder::setPut));
      case DELETE -> kv.delete(call.getDelete(), answer(id, KvCallResult.Builder::setDelete));
      case COMPARE_AND_SET -> kv.compareAndSet(call.getCompareAndSet(), answer(id, KvCallResult.Builder::setCompareAndSet));
      case DELETE_RANGE -> kv.deleteRange(call.getDeleteRange(), answer(id, KvCallResult.Builder::setDeleteRange));
      case BATCH -> kv.batch(call.getBatch(), answer(id, KvCallResult.Builder::setBatch));
      case SCAN -> kv.scan(call.getScan(), answer(id, KvCallResult.Builder::setScan));
      case OP_NOT_SET -> send(KvCallResult.newBuilder().setId(id)
          .setError(RangeKvErrors.invalidArgument("call", "a call needs an operation")).build());
    }
  }

  /** An observer that answers call {@code id} on the stream with the handler's reply or error. */
  private <T> StreamObserver<T> answer(long id, BiConsumer<KvCallResult.Builder, T> set) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        KvCallResult.Builder b = KvCallResult.newBuilder().setId(id);
        set.accept(b, value);
        send(b.build());
      }

      @Override
      public void onError(Throwable t) {
        RangeKvError error = RangeKvErrors.fromThrowable(t)
            .orElseGet(() -> RangeKvErrors.unavailable("unexpected " + t, false));
        send(KvCallResult.newBuilder().setId(id).setError(error).build());
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
