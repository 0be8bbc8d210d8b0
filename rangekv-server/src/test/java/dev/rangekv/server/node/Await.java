package dev.rangekv.server.node;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling for test conditions (no fixed sleeps). */
final class Await {
  private Await() {}

  static void until(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
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
