package dev.rangekv.core.split;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.key.Key;
import java.util.Optional;

/**
 * Append-aware split point: when nearly all writes to a range are appends at its end (a monotonic
 * key), split right after the last written key instead of in the middle. The filled part stays put and
 * goes cold; the new tail range starts empty, so it is cheap to move to the least loaded node before it
 * gets hot. FoundationDB issue #1322 asks for this; a midpoint split would leave the hot tail where it
 * was and move half of the cold data instead.
 */
public final class AppendSplit {
  private AppendSplit() {}

  /** True when the range's writes in the interval were mostly appends at its end. */
  public static boolean isAppending(RangeStats stats, ControllerConfig config) {
    TailWrites t = stats.tail();
    return t.writes() > 0 && t.appendShare() >= config.appendShare();
  }

  /**
   * The split key after the last written key ({@code maxWrittenKey + 0x00}), if the range is appending
   * and that key lies strictly inside the range.
   */
  public static Optional<Key> splitKey(RangeStats stats, ControllerConfig config) {
    if (!isAppending(stats, config)) {
      return Optional.empty();
    }
    Key at = stats.tail().maxWrittenKey().orElseThrow().successor();
    boolean inside = stats.range().start().isBefore(at) && stats.range().end().isAbove(at);
    return inside ? Optional.of(at) : Optional.empty();
  }
}
