package dev.rangekv.core.split;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LoadSplitPolicyPropertyTest {

  @Test
  void loadSplits_giveEachSideItsShare_andDeclineOnlyWhenNoCutCould() {
    ControllerConfig config = ControllerConfig.builder().splitQps(100).loadSplitIntervals(1)
        .splitCooldownMillis(600_000).build();
    Property.named("load-split-bounds").cases(1000).sizes(1, 400).check(g -> {
      Key lo = Key.of(new byte[] {(byte) g.nextInt(2)});
      RangeDescriptor r = new RangeDescriptor(1, lo, RangeEnd.at(Key.of(new byte[] {(byte) 9})), List.of("n1"), 3);
      List<WeightedKey> samples = new ArrayList<>();
      int n = g.between(1, g.size());
      int hot = g.chance(0.3) ? g.nextInt(4) : -1;
      for (int i = 0; i < n; i++) {
        byte[] tail = g.smallAlphabetBytes(0, 2, 5);
        byte[] key = new byte[tail.length + 1];
        key[0] = (byte) (2 + g.nextInt(6));
        System.arraycopy(tail, 0, key, 1, tail.length);
        double w = hot >= 0 && key[0] == 2 + hot ? 50 : 1;
        samples.add(new WeightedKey(g.chance(0.05) ? Key.of(new byte[] {12}) : Key.of(key), w)); // some outside
      }
      RangeStats stats = new RangeStats(r, 10, 10, 100, 100, "n1", samples, TailWrites.NONE);
      SplitDecision d = LoadSplitPolicy.evaluate(stats, LoadSplitState.initial(1, 3), config).decision();

      TreeMap<Key, Double> inside = new TreeMap<>();
      samples.stream().filter(s -> r.contains(s.key())).forEach(s -> inside.merge(s.key(), s.weight(), Double::sum));
      double total = inside.values().stream().mapToDouble(Double::doubleValue).sum();
      boolean someCutWorks = false;
      for (Key b : inside.keySet()) {
        double left = inside.headMap(b).values().stream().mapToDouble(Double::doubleValue).sum();
        someCutWorks |= Math.min(left, total - left) >= config.loadSplitMinShare() * total - 1e-9;
      }
      int count = (int) samples.stream().filter(s -> r.contains(s.key())).count();
      if (count < config.loadSplitMinSamples()) {
        assertThat(d).isInstanceOf(SplitDecision.Declined.class);
      } else if (d instanceof SplitDecision.Split s) {
        assertThat(s.splitKey()).isGreaterThan(r.start());
        assertThat(r.contains(s.splitKey())).isTrue();
        double left = inside.headMap(s.splitKey()).values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(Math.min(left, total - left)).isGreaterThanOrEqualTo(config.loadSplitMinShare() * total - 1e-9);
      } else {
        assertThat(d).isInstanceOf(SplitDecision.Declined.class);
        assertThat(someCutWorks).as("declined although a cut gives each side its share").isFalse();
      }
    });
  }
}
