package dev.rangekv.server.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A merge polls a peer every few milliseconds until a deadline, each poll a {@link Scheduling#later} step
 * whose future completes when the next step's does: thousands of steps must still deliver the last
 * step's outcome (a merge waiting 15 s on a stopped node polled ~750 times, and its abort never arrived).
 */
class SchedulingTest {
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final Scheduling scheduling = new Scheduling(executor, timer, System::nanoTime);

  @AfterEach
  void stop() {
    timer.shutdownNow();
    executor.shutdownNow();
  }

  @Test
  void aLongChainOfPauses_deliversTheLastStepsFailure() throws Exception {
    AtomicInteger steps = new AtomicInteger();
    CompletableFuture<Integer> out = poll(steps, 5_000);
    Throwable failure = null;
    try {
      out.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      failure = e.getCause();
    }
    assertThat(steps.get()).isEqualTo(5_000);
    assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessage("deadline");
  }

  @Test
  void aLongChainOfPauses_deliversTheLastStepsValue() throws Exception {
    AtomicInteger steps = new AtomicInteger();
    CompletableFuture<Integer> out = scheduling.later(0, () -> count(steps, 5_000));
    assertThat(out.get(60, TimeUnit.SECONDS)).isEqualTo(5_000);
  }

  private CompletableFuture<Integer> poll(AtomicInteger steps, int limit) {
    if (steps.incrementAndGet() >= limit) {
      return CompletableFuture.failedFuture(new IllegalStateException("deadline"));
    }
    return scheduling.later(0, () -> poll(steps, limit));
  }

  private CompletableFuture<Integer> count(AtomicInteger steps, int limit) {
    int n = steps.incrementAndGet();
    return n >= limit ? CompletableFuture.completedFuture(n) : scheduling.later(0, () -> count(steps, limit));
  }
}
