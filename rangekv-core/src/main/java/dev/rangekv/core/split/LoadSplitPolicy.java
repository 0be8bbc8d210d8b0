package dev.rangekv.core.split;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Optional;

/**
 * Load split (seed 000 "Choosing split points"): above {@code split.qps} for {@code
 * split.load-intervals} consecutive ticks, split at the weighted median of the sampled keys. Declined
 * with too few samples, or when either side would get under {@code split.load-min-share} of the load:
 * one key dominates and no split can divide it. A brief burst leaves no split behind because the count
 * restarts at the first cool tick. When the range appends at its end, the split goes after the last
 * written key instead ({@link AppendSplit}).
 */
public final class LoadSplitPolicy {
  private LoadSplitPolicy() {}

  /** Decides for one tick; {@code prior} is the state returned last tick (any generation). */
  public static SplitOutcome evaluate(RangeStats stats, LoadSplitState prior, ControllerConfig config) {
    RangeDescriptor r = stats.range();
    int before = prior.rangeId() == r.rangeId() && prior.generation() == r.generation() ? prior.hotTicks() : 0;
    if (stats.qps() <= config.splitQps()) {
      return new SplitOutcome(new SplitDecision.NoSplit(r.rangeId(), Explanation.of("load within split.qps")
          .with("qps", stats.qps()).with("splitQps", config.splitQps()).build()),
          LoadSplitState.initial(r.rangeId(), r.generation()));
    }
    int hot = Math.min(before + 1, config.loadSplitIntervals());
    LoadSplitState counting = new LoadSplitState(r.rangeId(), r.generation(), hot);
    if (hot < config.loadSplitIntervals()) {
      return new SplitOutcome(new SplitDecision.NoSplit(r.rangeId(),
          Explanation.of("load above split.qps, not yet sustained").with("qps", stats.qps())
              .with("splitQps", config.splitQps()).with("hotTicks", hot)
              .with("neededTicks", config.loadSplitIntervals()).build()), counting);
    }
    LoadSplitState reset = LoadSplitState.initial(r.rangeId(), r.generation());
    Optional<Key> tail = AppendSplit.splitKey(stats, config);
    if (tail.isPresent()) {
      return new SplitOutcome(new SplitDecision.Split(r.rangeId(), r.generation(), tail.get(), SplitCause.APPEND,
          Explanation.of("sustained load from appends at the end: split after the last written key")
              .with("qps", stats.qps()).with("splitQps", config.splitQps()).with("hotTicks", hot)
              .with("appendShare", stats.tail().appendShare()).build()), reset);
    }
    List<WeightedKey> samples = stats.sampledKeys().stream().filter(s -> r.contains(s.key())).toList();
    if (samples.size() < config.loadSplitMinSamples()) {
      return new SplitOutcome(new SplitDecision.Declined(r.rangeId(), r.generation(), SplitCause.LOAD,
          Explanation.of("too few sampled keys to place a load split").with("samples", samples.size())
              .with("minSamples", config.loadSplitMinSamples()).with("qps", stats.qps()).build()), counting);
    }
    LoadCut cut = LoadCut.of(samples);
    if (cut.splitKey().isEmpty() || cut.minShare() < config.loadSplitMinShare()) {
      return new SplitOutcome(new SplitDecision.Declined(r.rangeId(), r.generation(), SplitCause.LOAD,
          Explanation.of("one key dominates: no split gives each side its minimum share of the load")
              .with("qps", stats.qps()).with("bestMinShare", cut.minShare())
              .with("minShare", config.loadSplitMinShare()).with("heaviestKeyShare", cut.heaviestShare())
              .with("distinctKeys", cut.distinctKeys()).build()), counting);
    }
    return new SplitOutcome(new SplitDecision.Split(r.rangeId(), r.generation(), cut.splitKey().get(),
        SplitCause.LOAD, Explanation.of("sustained load above split.qps: split at the weighted median")
            .with("qps", stats.qps()).with("splitQps", config.splitQps()).with("hotTicks", hot)
            .with("leftShare", cut.leftWeight() / cut.total()).with("rightShare", cut.rightWeight() / cut.total())
            .with("samples", samples.size()).build()), reset);
  }
}
