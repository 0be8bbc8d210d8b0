package dev.rangekv.server.node;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded polling for the node tests (no fixed sleeps): testkit's {@link dev.rangekv.testkit.Await} every 20 ms. */
final class Await {
  private static final Duration POLL = Duration.ofMillis(20);

  private Await() {}

  static void until(Duration timeout, String what, BooleanSupplier condition) {
    dev.rangekv.testkit.Await.until(timeout, POLL, what, condition);
  }

  /** Polls {@code value} until it is present. */
  static <T> T value(Duration timeout, String what, Supplier<Optional<T>> value) {
    return dev.rangekv.testkit.Await.value(timeout, POLL, what, value);
  }
}
