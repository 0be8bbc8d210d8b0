package dev.rangekv.cli.workload;

import dev.rangekv.core.key.Key;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The workload's keys, {@code user%010d} by index (YCSB's names, zero-padded so byte order is index
 * order: inserts are monotonic, the case that sends every write to the last range). Keys
 * {@code [0, size())} are taken to exist: the load and insert operations claim indexes in order.
 * Thread-safe.
 */
public final class KeySpace {
  private final AtomicLong next;

  /** A key space whose first {@code existing} keys already exist. */
  public KeySpace(long existing) {
    if (existing < 0) {
      throw new IllegalArgumentException("existing keys must be >= 0, got " + existing);
    }
    this.next = new AtomicLong(existing);
  }

  /** Keys claimed so far. */
  public long size() {
    return next.get();
  }

  /** Claims the next index below {@code limit}; -1 when {@code limit} is reached. */
  public long claim(long limit) {
    while (true) {
      long i = next.get();
      if (i >= limit) {
        return -1;
      }
      if (next.compareAndSet(i, i + 1)) {
        return i;
      }
    }
  }

  /** {@code user%010d} of {@code index}. */
  public static Key key(long index) {
    return Key.of(name(index).getBytes(StandardCharsets.US_ASCII));
  }

  static String name(long index) {
    if (index < 0) {
      throw new IllegalArgumentException("key index must be >= 0, got " + index);
    }
    String digits = Long.toString(index);
    return "user" + "0".repeat(Math.max(0, 10 - digits.length())) + digits;
  }
}
