package dev.rangekv.cli;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Bounded polling for the CLI's process and cluster tests, through Awaitility: a node's log, the
 * cluster's state through a command. There is no event to wait on in either, so the state is polled;
 * a condition may throw an {@link AssertionError} to fail at once (a process that exited).
 */
public final class Await {
  /** {@code -Drangekv.await.trace=true} prints how long each wait took: where a slow test spends its time. */
  private static final boolean TRACE = Boolean.getBoolean("rangekv.await.trace");

  private Await() {}

  /** Polls {@code condition} every {@code every} until it holds; fails after {@code timeout} with {@code what}. */
  public static void until(Duration timeout, Duration every, String what, BooleanSupplier condition) {
    until(timeout, every, what, condition, () -> "");
  }

  /**
   * Like {@link #until(Duration, Duration, String, BooleanSupplier)}; a timeout's message ends with
   * {@code diagnosis} (the last output, the last command's result).
   */
  public static void until(Duration timeout, Duration every, String what, BooleanSupplier condition,
      Supplier<String> diagnosis) {
    long start = System.nanoTime();
    try {
      // polled in the calling thread: conditions start processes' commands and read test state
      Awaitility.await(what).atMost(timeout).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(every)
          .until(condition::getAsBoolean);
      if (TRACE) {
        System.out.printf("await: %.1f s until %s%n", (System.nanoTime() - start) / 1e9, what);
      }
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(what + ": not seen within " + timeout + diagnosis.get(), e);
    }
  }

  /**
   * Runs {@code attempt} every {@code every} until its result satisfies {@code done}, and returns that
   * result; fails after {@code timeout} with the last result (an attempt may itself fail at once by
   * throwing an {@link AssertionError}).
   */
  public static <T> T result(Duration timeout, Duration every, String what, Supplier<T> attempt,
      java.util.function.Predicate<T> done) {
    java.util.concurrent.atomic.AtomicReference<T> last = new java.util.concurrent.atomic.AtomicReference<>();
    until(timeout, every, what, () -> {
      last.set(attempt.get());
      return done.test(last.get());
    }, () -> "; last: " + last.get());
    return last.get();
  }
}
