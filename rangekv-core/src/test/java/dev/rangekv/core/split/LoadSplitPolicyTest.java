package dev.rangekv.core.split;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static dev.rangekv.core.cluster.ClusterFixtures.samples;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LoadSplitPolicyTest {
  private final ControllerConfig config = ControllerConfig.builder().splitQps(1000).build();
  private final RangeDescriptor r = range(7, 0, 10_000, "n1", "n2", "n3");

  private RangeStats hot(double qps, List<WeightedKey> keys) {
    return new RangeStats(r, 1000, 100, qps / 2, qps / 2, "n1", keys, TailWrites.NONE);
  }

  private static List<WeightedKey> spread(int from, int to) {
    List<WeightedKey> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(new WeightedKey(k(i), 1));
    }
    return out;
  }

  private SplitOutcome run(int ticks, RangeStats stats) {
    LoadSplitState state = LoadSplitState.initial(r.rangeId(), r.generation());
    SplitOutcome o = null;
    for (int i = 0; i < ticks; i++) {
      o = LoadSplitPolicy.evaluate(stats, state, config);
      state = o.next();
    }
    return o;
  }

  @Test
  void sustainedLoad_splitsAtTheWeightedMedianAfterNTicks() {
    RangeStats stats = hot(5000, spread(100, 300));
    assertThat(run(2, stats).decision()).isInstanceOf(SplitDecision.NoSplit.class);
    SplitOutcome third = run(3, stats);
    assertThat(third.decision()).isInstanceOfSatisfying(SplitDecision.Split.class, s -> {
      assertThat(s.splitKey()).isEqualTo(k(200));
      assertThat(s.cause()).isEqualTo(SplitCause.LOAD);
      assertThat(s.why().figure("leftShare")).contains(0.5);
    });
    assertThat(third.next().hotTicks()).isZero();
  }

  @Test
  void burstShorterThanNTicks_leavesNoSplit() {
    LoadSplitState state = LoadSplitState.initial(r.rangeId(), r.generation());
    RangeStats burst = hot(5000, spread(100, 300));
    RangeStats calm = hot(10, spread(100, 300));
    for (int cycle = 0; cycle < 5; cycle++) {
      for (RangeStats s : List.of(burst, burst, calm)) {
        SplitOutcome o = LoadSplitPolicy.evaluate(s, state, config);
        assertThat(o.decision()).isInstanceOf(SplitDecision.NoSplit.class);
        state = o.next();
      }
      assertThat(state.hotTicks()).isZero();
    }
  }

  @Test
  void oneDominantKey_isDeclinedWithReasonAndNumbers() {
    List<WeightedKey> keys = new ArrayList<>(samples(150, 900));
    keys.addAll(spread(100, 200));
    SplitOutcome o = run(3, hot(5000, keys));
    assertThat(o.decision()).isInstanceOfSatisfying(SplitDecision.Declined.class, d -> {
      assertThat(d.why().reason()).contains("one key dominates");
      assertThat(d.why().figure("heaviestKeyShare").orElseThrow()).isGreaterThan(0.8);
      assertThat(d.why().figure("bestMinShare").orElseThrow()).isLessThan(0.2);
    });
    assertThat(o.next().hotTicks()).isEqualTo(3);
  }

  @Test
  void tooFewSamples_isDeclined() {
    SplitOutcome o = run(3, hot(5000, spread(100, 150)));
    assertThat(o.decision()).isInstanceOfSatisfying(SplitDecision.Declined.class,
        d -> assertThat(d.why().reason()).contains("too few sampled keys"));
  }

  @Test
  void newGeneration_restartsTheCount() {
    LoadSplitState old = new LoadSplitState(r.rangeId(), r.generation() - 1 + 0, 2);
    RangeDescriptor next = r.withSpan(r.start(), r.end(), r.generation() + 1);
    RangeStats stats = new RangeStats(next, 1000, 100, 2500, 2500, "n1", spread(100, 300), TailWrites.NONE);
    SplitOutcome o = LoadSplitPolicy.evaluate(stats, old, config);
    assertThat(o.decision()).isInstanceOf(SplitDecision.NoSplit.class);
    assertThat(o.next().hotTicks()).isEqualTo(1);
    assertThat(o.next().generation()).isEqualTo(next.generation());
  }

  @Test
  void appendingRange_splitsAfterTheLastWrittenKey() {
    RangeStats stats = new RangeStats(r, 1000, 100, 0, 5000, "n1", spread(9000, 9200),
        new TailWrites(50_000, 49_500, Optional.of(k(9199))));
    SplitOutcome o = run(3, stats);
    assertThat(o.decision()).isInstanceOfSatisfying(SplitDecision.Split.class, s -> {
      assertThat(s.cause()).isEqualTo(SplitCause.APPEND);
      assertThat(s.splitKey()).isEqualTo(k(9199).successor());
    });
  }
}
