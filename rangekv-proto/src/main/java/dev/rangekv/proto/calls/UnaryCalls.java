package dev.rangekv.proto.calls;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * A unary gRPC call made through an async stub ({@code stub::method}) as a future of its one answer:
 * how the controller's steps and a node's move and merge steps call other nodes, so that no thread
 * waits on a call. The future completes on gRPC's callback thread.
 */
public final class UnaryCalls {
  private UnaryCalls() {}

  /**
   * Starts the call; the future fails with the call's error, with {@link IllegalStateException} if the
   * call completed without an answer, or with what starting it threw (e.g. the channel was shut down).
   */
  public static <Q, T> CompletableFuture<T> future(BiConsumer<Q, StreamObserver<T>> rpc, Q request) {
    CompletableFuture<T> out = new CompletableFuture<>();
    try {
      rpc.accept(request, new StreamObserver<T>() {
        private T value;

        @Override
        public void onNext(T v) {
          value = v;
        }

        @Override
        public void onError(Throwable t) {
          out.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
          if (value == null) {
            out.completeExceptionally(new IllegalStateException("the node answered nothing"));
          } else {
            out.complete(value);
          }
        }
      });
    } catch (RuntimeException e) {
      out.completeExceptionally(e);
    }
    return out;
  }
}
