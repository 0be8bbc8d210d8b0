package dev.rangekv.server.merge;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where a merge's steps run and how it tells time: its stages on {@code executor}, its pauses and
 * timeouts on {@code timer} (whose tasks only hand over to {@code executor}), its deadlines on {@code
 * nanoTime}. A node passes its own pools and {@code System::nanoTime}; tests pass a manual scheduler on
 * a fake clock, so that a merge that retries runs on the test's thread, step by step.
 */
public record Scheduling(Executor executor, ScheduledExecutorService timer, LongSupplier nanoTime) {
  /**
   * {@code next} after {@code millis}, on the executor: a pause that holds no thread. The result is handed
   * on from {@code next}'s future on the executor, not on the completing thread: a poll of thousands of
   * such steps (each the next one's {@code next}) would otherwise complete them all in one nested call,
   * overflow that thread's stack and lose the outcome (a merge's abort never arrived, {@code
   * SchedulingTest}).
   */
  <T> CompletableFuture<T> later(long millis, Supplier<CompletableFuture<T>> next) {
    CompletableFuture<T> out = new CompletableFuture<>();
    timer.schedule(() -> executor.execute(() -> {
      try {
        next.get().whenCompleteAsync((v, e) -> {
          if (e != null) {
            out.completeExceptionally(e);
          } else {
            out.complete(v);
          }
        }, executor);
      } catch (RuntimeException e) {
        out.completeExceptionally(e);
      }
    }), millis, TimeUnit.MILLISECONDS);
    return out;
  }

  /**
   * A copy of {@code f} that fails with a {@link TimeoutException} after {@code timeout}; {@code f}
   * itself is left alone (others may share it).
   */
  <T> CompletableFuture<T> within(CompletableFuture<T> f, Duration timeout) {
    CompletableFuture<T> copy = f.copy();
    if (!copy.isDone()) {
      var timeoutTask = timer.schedule(() -> copy.completeExceptionally(
          new TimeoutException("no answer in " + timeout.toMillis() + " ms")), timeout.toMillis(), TimeUnit.MILLISECONDS);
      copy.whenComplete((v, e) -> timeoutTask.cancel(false));
    }
    return copy;
  }

  /** The clock now plus {@code d}, as a deadline. */
  long deadline(Duration d) {
    return nanoTime.getAsLong() + d.toNanos();
  }

  boolean passed(long deadlineNanos) {
    return nanoTime.getAsLong() - deadlineNanos >= 0;
  }
}
