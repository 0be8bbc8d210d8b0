package dev.rangekv.core.split;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Optional;

/**
 * Size split: above {@code range.max-bytes}, split near the byte midpoint, which the store finds
 * cheaply from its index blocks; or, when the range is appending at its end, right after the last
 * written key ({@link AppendSplit}). Stateless.
 */
public final class SizeSplitPolicy {
  private SizeSplitPolicy() {}

  /**
   * {@link SplitDecision.NoSplit} at or below max-bytes; above it, a {@link SplitDecision.Split} at
   * the tail when appending, else {@link SplitDecision.NeedsMidpoint}.
   */
  public static SplitDecision evaluate(RangeStats stats, ControllerConfig config) {
    RangeDescriptor r = stats.range();
    if (stats.bytes() <= config.maxBytes()) {
      return new SplitDecision.NoSplit(r.rangeId(), Explanation.of("size within max-bytes")
          .with("bytes", stats.bytes()).with("maxBytes", config.maxBytes()).build());
    }
    Optional<Key> tail = AppendSplit.splitKey(stats, config);
    if (tail.isPresent()) {
      return new SplitDecision.Split(r.rangeId(), r.generation(), tail.get(), SplitCause.APPEND,
          Explanation.of("size above max-bytes and writes append at the end: split after the last written key")
              .with("bytes", stats.bytes()).with("maxBytes", config.maxBytes())
              .with("appendShare", stats.tail().appendShare()).with("minAppendShare", config.appendShare())
              .build());
    }
    return new SplitDecision.NeedsMidpoint(r.rangeId(), r.generation(),
        Explanation.of("size above max-bytes: split at the store's midpoint key")
            .with("bytes", stats.bytes()).with("maxBytes", config.maxBytes()).build());
  }

  /**
   * Completes a {@link SplitDecision.NeedsMidpoint} with the key the store found: a split when the key
   * lies strictly inside {@code range} (still at the decision's generation), else declined.
   */
  public static SplitDecision resolve(SplitDecision.NeedsMidpoint pending, RangeDescriptor range,
      Optional<Key> midpoint) {
    if (range.rangeId() != pending.rangeId() || range.generation() != pending.generation()) {
      return new SplitDecision.Declined(pending.rangeId(), pending.generation(), SplitCause.SIZE,
          Explanation.of("range changed since the decision").with("decidedGeneration", pending.generation())
              .with("generation", range.generation()).build());
    }
    if (midpoint.isEmpty() || !range.contains(midpoint.get()) || range.start().equals(midpoint.get())) {
      return new SplitDecision.Declined(pending.rangeId(), pending.generation(), SplitCause.SIZE,
          Explanation.of("store found no split key strictly inside the range (one huge key?)")
              .with("bytes", pending.why().figure("bytes").orElse(0.0)).build());
    }
    return new SplitDecision.Split(pending.rangeId(), pending.generation(), midpoint.get(), SplitCause.SIZE,
        pending.why());
  }
}
