package dev.rangekv.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.rangekv.server.ratis.MissingGroups;
import dev.rangekv.server.ratis.RatisEngine;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Drops Ratis' log lines about requests for a range group this node does not run (each a warning with
 * a stack trace: 2,456 in one node's log of a pre-split into 1,000 ranges while children were born
 * awake, BENCHMARKS.md) and logs one line in their place at most once a minute, with how many were
 * dropped. Other lines pass. Thread-safe.
 */
final class MissingGroupNoise extends TurboFilter {
  private static final long WINDOW_NANOS = 60_000_000_000L;
  private static final org.slf4j.Logger log = LoggerFactory.getLogger(MissingGroupNoise.class);

  private final LongSupplier nanoClock;
  private final AtomicLong windowStart = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong dropped = new AtomicLong();

  MissingGroupNoise(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (!logger.getName().startsWith(RatisEngine.LOGGER_NAMESPACE) || !missingGroup(params, t)) {
      return FilterReply.NEUTRAL;
    }
    long n = dropped.incrementAndGet();
    long now = nanoClock.getAsLong();
    long start = windowStart.get();
    if ((start == Long.MIN_VALUE || now - start >= WINDOW_NANOS) && windowStart.compareAndSet(start, now)) {
      dropped.addAndGet(-n);
      log.info("a peer asked for a range group this node does not run (a split child not created here yet, or a"
          + " dormant range closed here); the peer retries dropped={} (stack traces not logged, the next such"
          + " line within a minute at most)", n);
    }
    return FilterReply.DENY;
  }

  /** slf4j hands a trailing exception in as {@code t}, or as the last parameter when it was not bound. */
  private static boolean missingGroup(Object[] params, Throwable t) {
    if (t != null && MissingGroups.isMissingGroup(t)) {
      return true;
    }
    return params != null && params.length > 0 && params[params.length - 1] instanceof Throwable last
        && MissingGroups.isMissingGroup(last);
  }
}
