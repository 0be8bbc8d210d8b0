package dev.rangekv.server.move;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What the leader's admin steps (replica changes, merges) are built from so that no thread waits on
 * them (their calls to other nodes are {@code UnaryCalls} futures): bounded waits that time out a copy
 * of a future (never the future itself, which others may share), and the failure inside a completion's
 * wrappers. The
 * steps chain these with {@code *Async(..., executor)} stages: the consensus engine completes its futures on its own
 * threads, some while holding the server's lock, so no continuation runs there.
 */
public final class AsyncSteps {
  private AsyncSteps() {}

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
