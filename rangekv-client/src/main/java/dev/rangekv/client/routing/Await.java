package dev.rangekv.client.routing;

import dev.rangekv.client.DeadlineExceededException;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.client.UnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one place the synchronous API blocks: waits for a call's future until its deadline (plus a grace
 * period: the router itself ends every call by its deadline, so the grace only guards against bugs)
 * and rethrows the call's {@link RangeKvException} as is.
 */
public final class Await {
  private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  private Await() {}

  public static <T> T result(CompletableFuture<T> future, long deadlineNanos) {
    long wait = Math.max(0, deadlineNanos - System.nanoTime()) + GRACE_NANOS;
    try {
      return future.get(wait, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = Failures.unwrap(e.getCause());
      if (cause instanceof RangeKvException rke) {
        // rethrown on the caller's thread, so keep the async stack as the cause's
        throw rke;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new UnavailableException("call failed: " + cause, cause);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new DeadlineExceededException("call did not end by its deadline", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnavailableException("interrupted while waiting for a call", e);
    }
  }
}
