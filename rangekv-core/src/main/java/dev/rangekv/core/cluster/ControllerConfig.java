package dev.rangekv.core.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The thresholds of every policy. The compact constructor refuses settings that break a range rule or
 * would make split and merge undo each other, with a message naming the settings.
 *
 * <p>Hysteresis rules (seed 002 "split/merge oscillation"): a merged range (under {@code 2 x
 * min-bytes}) must stay well below max-bytes, a merged range's load (under {@code 2 x merge-qps}) well
 * below split-qps, and a range split for load must not be mergeable before the load evidence window
 * ({@code load-split-intervals} ticks) has passed.
 *
 * @param maxBytes {@code range.max-bytes}: size split above this (default 64 MiB)
 * @param minBytes {@code range.min-bytes}: merge candidates are below this (default max / 4)
 * @param splitQps {@code split.qps}: load split above this many reads+writes per second
 * @param mergeQps {@code merge.qps}: merge candidates are below this (default split / 10)
 * @param loadSplitIntervals {@code split.load-intervals}: consecutive hot ticks before a load split (3)
 * @param loadSplitMinShare {@code split.load-min-share}: each side of a load split gets at least this
 *     share of the sampled load (0.2)
 * @param loadSplitMinSamples {@code split.load-min-samples}: sampled keys needed for a load split (100)
 * @param appendShare {@code split.append-share}: share of writes that must be appends at the end for
 *     an append-aware split (0.9)
 * @param splitCooldownMillis {@code merge.split-cooldown}: no merge of a range split this recently (10 min)
 * @param tickMillis {@code controller.tick}: the interval between ticks and heartbeats (10 s)
 * @param maxMovesInFlight {@code rebalance.max-moves}: rebalancing moves in flight at once (2)
 * @param maxRepairsInFlight {@code repair.max-moves}: repair moves in flight at once (4)
 * @param maxLeaderTransfers {@code rebalance.max-leader-transfers}: leadership transfers per tick (4)
 * @param balanceTolerance {@code rebalance.tolerance}: allowed relative distance from the mean (0.1)
 * @param balanceMinGain {@code rebalance.min-gain}: hysteresis; a balancing move or transfer must lower
 *     the load score by at least this share of its own weight (0.5), so the node it loads ends at most
 *     half the moved load above the node it relieves, and noise in the measured load cannot send a range
 *     back and forth (0 turns it off)
 * @param deadNodeTimeoutMillis {@code node.dead-timeout}: a node silent this long is dead (60 s)
 * @param replicationFactor {@code range.replicas}: replicas per range (3; fewer when fewer nodes live)
 * @param hotspotWindow {@code hotspot.window}: ticks looked at by the monotonic-key detector (10)
 * @param hotspotShare {@code hotspot.share}: share of the window the tail must be hottest (0.8)
 * @param hotKeyShare {@code hotspot.key-share}: share of a range's load one key must carry (0.5)
 * @param hotspotMinQps {@code hotspot.min-qps}: ranges below this load raise no alert (split / 4)
 */
public record ControllerConfig(
    long maxBytes,
    long minBytes,
    double splitQps,
    double mergeQps,
    int loadSplitIntervals,
    double loadSplitMinShare,
    int loadSplitMinSamples,
    double appendShare,
    long splitCooldownMillis,
    long tickMillis,
    int maxMovesInFlight,
    int maxRepairsInFlight,
    int maxLeaderTransfers,
    double balanceTolerance,
    double balanceMinGain,
    long deadNodeTimeoutMillis,
    int replicationFactor,
    int hotspotWindow,
    double hotspotShare,
    double hotKeyShare,
    double hotspotMinQps) {

  public ControllerConfig {
    List<String> problems = problems(maxBytes, minBytes, splitQps, mergeQps, loadSplitIntervals,
        loadSplitMinShare, loadSplitMinSamples, appendShare, splitCooldownMillis, tickMillis);
    problems.addAll(problems2(maxMovesInFlight, maxRepairsInFlight, maxLeaderTransfers, balanceTolerance,
        balanceMinGain, deadNodeTimeoutMillis, tickMillis, replicationFactor, hotspotWindow, hotspotShare, hotKeyShare,
        hotspotMinQps));
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
  }

  /** The defaults listed above. */
  public static ControllerConfig defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults; min-bytes, merge-qps and hotspot-min-qps follow max-bytes
   * and split-qps unless set explicitly. */
  public static ControllerConfigBuilder builder() {
    return new ControllerConfigBuilder();
  }

  private static List<String> problems(long maxBytes, long minBytes, double splitQps, double mergeQps,
      int intervals, double minShare, int minSamples, double appendShare, long cooldown, long tick) {
    List<String> p = new ArrayList<>();
    if (maxBytes <= 0) {
      p.add("range.max-bytes must be > 0, got " + maxBytes);
    }
    if (minBytes < 0) {
      p.add("range.min-bytes must be >= 0, got " + minBytes);
    } else if (maxBytes > 0 && (double) minBytes * 8 > (double) maxBytes * 3) {
      p.add("range.min-bytes=" + minBytes + " must be at most 3/8 of range.max-bytes=" + maxBytes
          + " (default 1/4): a merge of two ranges under min-bytes must stay well below max-bytes,"
          + " or the next size split undoes it");
    }
    if (!(splitQps > 0) || Double.isInfinite(splitQps)) {
      p.add("split.qps must be > 0 and finite, got " + splitQps);
    }
    if (!(mergeQps >= 0)) {
      p.add("merge.qps must be >= 0, got " + mergeQps);
    } else if (splitQps > 0 && mergeQps * 4 > splitQps) {
      p.add("merge.qps=" + mergeQps + " must be at most 1/4 of split.qps=" + splitQps
          + " (default 1/10): a merge of two ranges under merge.qps must stay well below split.qps,"
          + " or the next load split undoes it");
    }
    if (intervals < 1) {
      p.add("split.load-intervals must be >= 1, got " + intervals);
    }
    if (!(minShare > 0 && minShare < 0.5)) {
      p.add("split.load-min-share must be in (0, 0.5), got " + minShare);
    }
    if (minSamples < 1) {
      p.add("split.load-min-samples must be >= 1, got " + minSamples);
    }
    if (!(appendShare > 0.5 && appendShare <= 1)) {
      p.add("split.append-share must be in (0.5, 1], got " + appendShare);
    }
    if (tick <= 0) {
      p.add("controller.tick must be > 0 ms, got " + tick);
    } else if (cooldown < (long) Math.max(intervals, 1) * tick) {
      p.add("merge.split-cooldown=" + cooldown + "ms must be at least split.load-intervals x controller.tick = "
          + (long) Math.max(intervals, 1) * tick + "ms: a range split for load could be merged back"
          + " before its load was measured again");
    }
    return p;
  }

  private static List<String> problems2(int moves, int repairs, int transfers, double tolerance, double minGain,
      long dead,
      long tick, int rf, int window, double share, double keyShare, double hotMinQps) {
    List<String> p = new ArrayList<>();
    if (moves < 1) {
      p.add("rebalance.max-moves must be >= 1, got " + moves);
    }
    if (repairs < 1) {
      p.add("repair.max-moves must be >= 1, got " + repairs);
    }
    if (transfers < 0) {
      p.add("rebalance.max-leader-transfers must be >= 0, got " + transfers);
    }
    if (!(tolerance > 0 && tolerance < 1)) {
      p.add("rebalance.tolerance must be in (0, 1), got " + tolerance);
    }
    if (!(minGain >= 0 && minGain <= 1)) {
      p.add("rebalance.min-gain must be in [0, 1], got " + minGain);
    }
    if (tick > 0 && dead < 3 * tick) {
      p.add("node.dead-timeout=" + dead + "ms must be at least 3 x controller.tick=" + tick
          + "ms: a node missing one or two heartbeats is not dead");
    }
    if (rf < 1) {
      p.add("range.replicas must be >= 1, got " + rf);
    }
    if (window < 1) {
      p.add("hotspot.window must be >= 1, got " + window);
    }
    if (!(share > 0 && share <= 1)) {
      p.add("hotspot.share must be in (0, 1], got " + share);
    }
    if (!(keyShare > 0 && keyShare <= 1)) {
      p.add("hotspot.key-share must be in (0, 1], got " + keyShare);
    }
    if (!(hotMinQps >= 0)) {
      p.add("hotspot.min-qps must be >= 0, got " + hotMinQps);
    }
    return p;
  }
}
