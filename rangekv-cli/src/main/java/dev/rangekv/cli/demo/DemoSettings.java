package dev.rangekv.cli.demo;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.server.node.RaftTuning;
import java.time.Duration;

/**
 * The demo's sizes and thresholds: small enough that ranges split within seconds on a busy 2-core box,
 * where the whole 4-node cluster in one JVM took ~1,300 writes/s to one range and fewer spread
 * (CPU-bound, README "Choosing keys"): 1 MiB ranges,
 * 512-byte event values, a load-split threshold well under one range's rate, one controller tick per
 * live line, short cooldowns; B = 8 buckets for the bucketed design (one per 2 ranges of a 4-node map).
 */
final class DemoSettings {
  /** Bytes per event value: ranges fill (and split by size) in seconds at demo write rates. */
  static final int VALUE_BYTES = 512;

  /** Buckets of the bucketed design: each a time-ordered stream; the time query merges B scans. */
  static final int BUCKETS = 8;

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
        .splitQps(200)
        .loadSplitIntervals(2)
        .loadSplitMinSamples(30)
        .splitCooldownMillis(Math.max(10_000, 4 * tickMillis))
        .tickMillis(tickMillis)
        .maxMovesInFlight(2)
        .balanceTolerance(0.2)
        .deadNodeTimeoutMillis(Math.max(10_000, 5 * tickMillis))
        .hotspotWindow(5)
        .hotspotShare(0.6) // 3 of 5 ticks: at demo rates the tail splits every few seconds and a fresh tail reports a tick late
        .hotspotMinQps(10)
        .build();
  }
}
