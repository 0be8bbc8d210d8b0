package dev.rangekv.testkit;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Bounded polling for cluster and process tests, through Awaitility: cluster state has no event to
 * wait on, so it is polled, in the calling thread (conditions read test state that is not thread-safe,
 * or run commands). A condition may throw an {@link AssertionError} to fail at once.
 * {@code -Drangekv.await.trace=true} prints how long each wait took: where a slow test spends its time.
 */
public final class Await {
  private static final boolean TRACE = Boolean.getBoolean("rangekv.await.trace");
  /** The poll interval when none is given: cheap checks of in-JVM or loopback state. */
  private static final Duration POLL = Duration.ofMillis(20);

  private Await() {}

  /** Polls {@code condition} every 20 ms until it holds; fails after {@code timeout} naming {@code what}. */
  public static void until(Duration timeout, String what, BooleanSupplier condition) {
    until(timeout, POLL, what, condition);
  }

  /** Polls {@code condition} every {@code every} until it holds; fails after {@code timeout} naming {@code what}. */
  public static void until(Duration timeout, Duration every, String what, BooleanSupplier condition) {
    until(timeout, every, what, condition, () -> "");
  }

  /** As {@link #until(Duration, Duration, String, BooleanSupplier)}; a timeout's message ends with {@code diagnosis}. */
  public static void until(Duration timeout, Duration every, String what, BooleanSupplier condition,
      Supplier<String> diagnosis) {
    long start = System.nanoTime();
    try {
      Awaitility.await(what).atMost(timeout).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(every)
          .until(condition::getAsBoolean);
      if (TRACE) {
        System.out.printf("await: %.1f s until %s%n", (System.nanoTime() - start) / 1e9, what);
      }
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("timed out after " + timeout + " waiting until " + what + diagnosis.get(), e);
    }
  }

  /** Polls {@code value} every 20 ms until it is present, and returns it. */
  public static <T> T value(Duration timeout, String what, Supplier<Optional<T>> value) {
    return value(timeout, POLL, what, value);
  }

  /** Polls {@code value} every {@code every} until it is present, and returns it. */
  public static <T> T value(Duration timeout, Duration every, String what, Supplier<Optional<T>> value) {
    AtomicReference<T> found = new AtomicReference<>();
    until(timeout, every, what, () -> {
      value.get().ifPresent(found::set);
      return found.get() != null;
    });
    return found.get();
  }

  /**
   * Runs {@code attempt} every {@code every} until its result satisfies {@code done}, and returns that
   * result; fails after {@code timeout} with the last result.
   */
  public static <T> T result(Duration timeout, Duration every, String what, Supplier<T> attempt, Predicate<T> done) {
    AtomicReference<T> last = new AtomicReference<>();
    until(timeout, every, what, () -> {
      last.set(attempt.get());
      return done.test(last.get());
    }, () -> "; last: " + last.get());
    return last.get();
  }
}
