package dev.rangekv.server.move;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Paces a byte stream to at most {@code bytesPerSecond} on average (a virtual-clock limiter: each
 * acquire moves the earliest next send time forward by {@code bytes / rate}), with at most one second
 * of burst credit. Zero or negative means unlimited. Not thread-safe: one per stream.
 */
public final class BandwidthLimiter {
  private final long bytesPerSecond;
  private final LongSupplier nanoClock;
  private final Sleeper sleeper;
  private long nextFreeNanos;

  /** How the limiter waits; tests pass a fake. */
  public interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  public BandwidthLimiter(long bytesPerSecond, LongSupplier nanoClock, Sleeper sleeper) {
    this.bytesPerSecond = bytesPerSecond;
    this.nanoClock = nanoClock;
    this.sleeper = sleeper;
    this.nextFreeNanos = nanoClock.getAsLong();
  }

  /** A limiter on the system clock that sleeps the calling thread. */
  public static BandwidthLimiter of(long bytesPerSecond) {
    return new BandwidthLimiter(bytesPerSecond, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
  }

  public boolean isLimited() {
    return bytesPerSecond > 0;
  }

  /** Waits until {@code bytes} more may be sent. */
  public void acquire(long bytes) throws InterruptedException {
    if (bytesPerSecond <= 0 || bytes <= 0) {
      return;
    }
    long now = nanoClock.getAsLong();
    long start = Math.max(nextFreeNanos, now - TimeUnit.SECONDS.toNanos(1));
    long cost = (long) (bytes * 1e9 / bytesPerSecond);
    nextFreeNanos = start + cost;
    long wait = nextFreeNanos - now;
    if (wait > 0) {
      sleeper.sleepNanos(wait);
    }
  }
}
