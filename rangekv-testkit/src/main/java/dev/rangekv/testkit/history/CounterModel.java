package dev.rangekv.testkit.history;

import java.util.Optional;

/**
 * A counter incremented by compare-and-set from many writers: it counts increments acknowledged and
 * ambiguous, and judges the final value, which must lie in [acked, acked + ambiguous]. Thread-safe.
 */
public final class CounterModel {
  private final String key;
  private long acked;
  private long ambiguous;

  public CounterModel(String key) {
    this.key = key;
  }

  /** Records an increment's outcome (a CAS that found another value is no increment: not recorded). */
  public synchronized void increment(Outcome outcome) {
    if (outcome == Outcome.ACKED) {
      acked++;
    } else if (outcome == Outcome.AMBIGUOUS) {
      ambiguous++;
    }
  }

  public synchronized long acked() {
    return acked;
  }

  public synchronized long ambiguous() {
    return ambiguous;
  }

  /** Judges the counter's value as read (0 when absent) once every increment has completed. */
  public synchronized Optional<Violation> check(long value) {
    if (value < acked || value > acked + ambiguous) {
      return Optional.of(new Violation(Violation.Kind.COUNTER, key,
          "value=" + value + " acked=" + acked + " ambiguous=" + ambiguous));
    }
    return Optional.empty();
  }
}
