package dev.rangekv.server.node;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import java.util.function.BooleanSupplier;

/** Bounded polling for test conditions (no fixed sleeps), through Awaitility. */
final class Await {
  private Await() {}

  static void until(Duration timeout, String what, BooleanSupplier condition) {
    long start = System.nanoTime();
    try {
      // polled in the calling thread, as the conditions read test state that is not thread-safe
      Awaitility.await(what).atMost(timeout).pollInSameThread().pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
      if (Boolean.getBoolean("rangekv.await.trace")) { // where a slow test spends its time
        System.out.printf("await: %.1f s until %s%n", (System.nanoTime() - start) / 1e9, what);
      }
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("timed out after " + timeout + " waiting for " + what, e);
    }
  }

  /** Polls {@code value} until it is present. */
  static <T> T value(Duration timeout, String what, java.util.function.Supplier<java.util.Optional<T>> value) {
    Object[] box = new Object[1];
    until(timeout, what, () -> {
      java.util.Optional<T> v = value.get();
      v.ifPresent(x -> box[0] = x);
      return v.isPresent();
    });
    @SuppressWarnings("unchecked")
    T t = (T) box[0];
    return t;
  }
}
