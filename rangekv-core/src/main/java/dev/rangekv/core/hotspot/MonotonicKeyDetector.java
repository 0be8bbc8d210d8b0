package dev.rangekv.core.hotspot;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import java.util.List;
import java.util.Optional;

/**
 * Monotonic-key detection (seed 000 "The monotonic key hotspot": "watch for the hottest range always
 * being the last"). Each tick records whether the range taking the most writes is the tail: the range
 * holding the highest key written anywhere (or, without append reports, the last range). The hottest
 * must take at least {@code hotspot.min-qps} writes and twice the mean per range, so an even load never
 * counts, and (when the node reports the append signal) at least {@code split.append-share} of its
 * writes must land above everything it held, so random keys filling the last range do not count. When the tail was hottest in at least {@code hotspot.share} of a full {@code hotspot.window},
 * the alert names the hot keys' common prefix and suggests a bucketed key.
 */
public final class MonotonicKeyDetector {
  private MonotonicKeyDetector() {}

  public static MonotonicOutcome observe(ClusterSnapshot s, MonotonicWindow prior, ControllerConfig config) {
    List<RangeStats> ranges = s.ranges();
    Optional<RangeStats> hottest = ranges.stream().reduce((a, b) -> b.writeQps() > a.writeQps() ? b : a);
    Optional<RangeStats> tail = tail(ranges);
    double totalWrites = ranges.stream().mapToDouble(RangeStats::writeQps).sum();
    boolean observed = ranges.size() >= 2 && hottest.isPresent() && tail.isPresent()
        && hottest.get().rangeId() == tail.get().rangeId()
        && hottest.get().writeQps() >= config.hotspotMinQps()
        && hottest.get().writeQps() >= 2 * totalWrites / ranges.size()
        && appending(hottest.get(), config);
    MonotonicWindow next = prior.push(observed, config.hotspotWindow());
    int needed = (int) Math.ceil(config.hotspotShare() * config.hotspotWindow());
    if (next.tailWasHottest().size() < config.hotspotWindow() || next.tailHotTicks() < needed || tail.isEmpty()) {
      return new MonotonicOutcome(Optional.empty(), next);
    }
    RangeStats t = tail.get();
    Key prefix = commonPrefix(t);
    String p = prefix.isEmpty() ? "(no common prefix)" : prefix.toString();
    String suggestion = "keys grow monotonically under prefix " + p + ": every insert hits the last range and"
        + " splits cannot help; put a hash bucket before the increasing part (see HashBucketKeys: [bucket]"
        + " ++ key, buckets sized for the write parallelism needed); time-window scans then fan out to one"
        + " sub-scan per bucket, merged in order";
    Explanation why = Explanation.of("the range at the end of the written keys was the hottest for most of the window")
        .with("tailHotTicks", next.tailHotTicks()).with("window", config.hotspotWindow())
        .with("neededTicks", needed).with("tailWriteQps", t.writeQps()).with("totalWriteQps", totalWrites)
        .build();
    return new MonotonicOutcome(Optional.of(new HotspotAlert.MonotonicKey(t.rangeId(), prefix, suggestion, why)), next);
  }

  /**
   * Whether the range's writes are appends at its end, when it reports them: random keys filling a
   * fresh range can make it both the hottest and the holder of the highest key, but few of them land
   * above everything it held before.
   */
  static boolean appending(RangeStats r, ControllerConfig config) {
    return r.tail().writes() == 0 || r.tail().appendShare() >= config.appendShare();
  }

  /** The range holding the highest written key, or the last range when no range reports appends. */
  static Optional<RangeStats> tail(List<RangeStats> ranges) {
    RangeStats best = null;
    Key bestKey = null;
    for (RangeStats r : ranges) {
      Optional<Key> k = r.tail().maxWrittenKey();
      if (k.isPresent() && (bestKey == null || bestKey.isBefore(k.get()))) {
        best = r;
        bestKey = k.get();
      }
    }
    if (best == null && !ranges.isEmpty() && ranges.get(ranges.size() - 1).range().end().isInfinite()) {
      best = ranges.get(ranges.size() - 1);
    }
    return Optional.ofNullable(best);
  }

  /** Longest common prefix of the range's sampled keys (or its last written key and start without samples). */
  static Key commonPrefix(RangeStats r) {
    List<Key> keys = r.sampledKeys().stream().map(WeightedKey::key).toList();
    if (keys.size() < 2) {
      keys = List.of(r.tail().maxWrittenKey().orElse(r.range().start()), r.range().start());
    }
    Key first = keys.get(0);
    int len = first.size();
    for (Key k : keys) {
      int i = 0;
      int max = Math.min(len, k.size());
      while (i < max && first.byteAt(i) == k.byteAt(i)) {
        i++;
      }
      len = i;
    }
    return first.prefix(len);
  }
}
