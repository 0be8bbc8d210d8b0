package dev.rangekv.meta.state;

/**
 * Bounds of the meta state. Every replica of the meta range must use the same limits (they decide
 * what is trimmed, so they are part of the deterministic transition function).
 *
 * @param maxEvents events kept; the oldest are trimmed beyond it
 * @param maxRemovals recent range removals kept to answer {@code changesSince}; older versions get
 *     the full map
 */
public record MetaLimits(int maxEvents, int maxRemovals) {
  public MetaLimits {
    if (maxEvents < 1 || maxRemovals < 1) {
      throw new IllegalArgumentException("limits must be positive: maxEvents=" + maxEvents + " maxRemovals="
          + maxRemovals);
    }
  }

  /** 10,000 events, 4096 removals. */
  public static MetaLimits defaults() {
    return new MetaLimits(10_000, 4096);
  }
}
