package dev.rangekv.server.move;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BandwidthLimiterTest {
  private long now;
  private long slept;

  private BandwidthLimiter limiter(long bytesPerSecond) {
    return new BandwidthLimiter(bytesPerSecond, () -> now, nanos -> {
      slept += nanos;
      now += nanos;
    });
  }

  @Test
  void sendingTenSecondsWorthOfBytes_takesTenSeconds() throws InterruptedException {
    BandwidthLimiter l = limiter(1 << 20);
    for (int i = 0; i < 40; i++) {
      l.acquire(256 << 10);
    }
    assertThat(slept).isBetween(TimeUnit.MILLISECONDS.toNanos(9_990), TimeUnit.MILLISECONDS.toNanos(10_010));
  }

  @Test
  void idleTime_givesAtMostOneSecondOfBurst() throws InterruptedException {
    BandwidthLimiter l = limiter(1 << 20);
    now += TimeUnit.SECONDS.toNanos(60);
    l.acquire(1 << 20);
    assertThat(slept).isZero();
    l.acquire(1 << 20);
    assertThat(slept).isEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void zeroMeansUnlimited() throws InterruptedException {
    BandwidthLimiter l = limiter(0);
    l.acquire(1L << 40);
    assertThat(slept).isZero();
    assertThat(l.isLimited()).isFalse();
  }
}
