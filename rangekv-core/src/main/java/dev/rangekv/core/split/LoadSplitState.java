package dev.rangekv.core.split;

/**
 * What the load-split policy remembers about one range between ticks: how many consecutive ticks it
 * has been above the QPS threshold, at which generation. A new generation (split, merge, replica
 * change) starts the count again. Immutable; the controller keeps one per range id.
 *
 * @param rangeId the range
 * @param generation the generation the count belongs to
 * @param hotTicks consecutive ticks above {@code split.qps}
 */
public record LoadSplitState(long rangeId, long generation, int hotTicks) {

  public LoadSplitState {
    if (hotTicks < 0) {
      throw new IllegalArgumentException("negative hotTicks " + hotTicks);
    }
  }

  /** No history for a range. */
  public static LoadSplitState initial(long rangeId, long generation) {
    return new LoadSplitState(rangeId, generation, 0);
  }
}
