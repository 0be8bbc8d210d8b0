package dev.rangekv.core.split;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;

/**
 * Both split rules for one range and tick: size first (a range above max-bytes is split whatever its
 * load), then load. The load state still advances while the size rule acts, but a size split changes
 * the generation, which restarts the count anyway.
 */
public final class SplitPolicy {
  private SplitPolicy() {}

  public static SplitOutcome evaluate(RangeStats stats, LoadSplitState prior, ControllerConfig config) {
    SplitOutcome load = LoadSplitPolicy.evaluate(stats, prior, config);
    SplitDecision size = SizeSplitPolicy.evaluate(stats, config);
    if (!(size instanceof SplitDecision.NoSplit)) {
      return new SplitOutcome(size, load.next());
    }
    return load;
  }
}
