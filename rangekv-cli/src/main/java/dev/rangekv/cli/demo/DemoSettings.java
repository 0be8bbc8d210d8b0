package dev.rangekv.cli.demo;

import dev.rangekv.core.policy.ControllerConfig;
import dev.rangekv.server.node.RaftTuning;
import java.time.Duration;

/**
 * The demo's sizes and thresholds: small enough that a few writer threads split ranges within seconds
 * even on a busy 2-core box, where a 3-replica cluster in one JVM acknowledges only ~50-150 writes/s
 * (BENCHMARKS.md "What still limits writes"): 1 MiB ranges, 4 KiB event values, a load-split threshold
 * of 40 QPS, one controller tick per live line, short cooldowns.
 */
final class DemoSettings {
  /** Bytes per event value: big enough that ranges fill in seconds at demo write rates. */
  static final int VALUE_BYTES = 4096;

  private DemoSettings() {}

  /**
   * Test-speed elections, and Raft log appends acknowledged before their fsync: every node of the demo
   * lives in this one process over a temporary directory that is deleted at the end, so durability
   * across a machine crash buys nothing here, and fsync-bound writes would take minutes to fill ranges.
   */
  static RaftTuning tuning() {
    return RaftTuning.forTests().withUnsafeFlush(true);
  }

  static ControllerConfig controller(Duration tick) {
    long tickMillis = Math.max(500, tick.toMillis());
    return ControllerConfig.builder()
        .maxBytes(1 << 20)
        .splitQps(40)
        .loadSplitIntervals(2)
        .loadSplitMinSamples(30)
        .splitCooldownMillis(Math.max(10_000, 4 * tickMillis))
        .tickMillis(tickMillis)
        .maxMovesInFlight(2)
        .balanceTolerance(0.2)
        .deadNodeTimeoutMillis(Math.max(10_000, 5 * tickMillis))
        .hotspotWindow(5)
        .hotspotShare(0.8)
        .hotspotMinQps(10)
        .build();
  }
}
