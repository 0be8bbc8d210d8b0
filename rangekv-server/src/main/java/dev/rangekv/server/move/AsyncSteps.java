package dev.rangekv.server.move;

import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * What the leader's admin steps (replica changes, merges) are built from so that no thread waits on
 * them: unary calls to other nodes as futures, bounded waits that time out a copy of a future (never
 * the future itself, which others may share), and the failure inside a completion's wrappers. The
 * steps chain these with {@code *Async(..., executor)} stages: Ratis completes its futures on its own
 * threads, some while holding the server's lock, so no continuation runs there.
 */
public final class AsyncSteps {
  private AsyncSteps() {}

  /** One async unary call ({@code stub::method}) as a future of its answer. */
  public static <Q, T> CompletableFuture<T> unary(BiConsumer<Q, StreamObserver<T>> rpc, Q request) {
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
      out.completeExceptionally(e); // e.g. the channels closed with the node
    }
    return out;
  }

  /**
   * A copy of {@code f} that fails with a {@link java.util.concurrent.TimeoutException} after {@code
   * timeout}; {@code f} itself is left alone.
   */
  public static <T> CompletableFuture<T> within(CompletableFuture<T> f, Duration timeout) {
    return f.copy().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The failure inside {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable cause(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
