package dev.rangekv.core.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LoadCutPropertyTest {

  @Test
  void cut_isTheMostBalancedBoundary_comparedWithBruteForce() {
    Property.named("load-cut-optimal").cases(1000).sizes(1, 300).check(g -> {
      List<WeightedKey> samples = new ArrayList<>();
      int n = g.between(1, g.size());
      boolean skewed = g.nextBoolean();
      for (int i = 0; i < n; i++) {
        Key key = Key.of(g.smallAlphabetBytes(1, 3, 4));
        double w = skewed && g.chance(0.1) ? 1 + g.nextInt(1000) : 1 + g.nextInt(5);
        samples.add(new WeightedKey(key, w));
      }
      LoadCut cut = LoadCut.of(samples);

      TreeMap<Key, Double> byKey = new TreeMap<>();
      samples.forEach(s -> byKey.merge(s.key(), s.weight(), Double::sum));
      double total = byKey.values().stream().mapToDouble(Double::doubleValue).sum();
      double bestMin = -1;
      for (Key boundary : byKey.keySet()) {
        if (boundary.equals(byKey.firstKey())) {
          continue;
        }
        double left = byKey.headMap(boundary).values().stream().mapToDouble(Double::doubleValue).sum();
        bestMin = Math.max(bestMin, Math.min(left, total - left));
      }
      assertThat(cut.distinctKeys()).isEqualTo(byKey.size());
      assertThat(cut.total()).isCloseTo(total, within(1e-6 * total));
      assertThat(cut.heaviestWeight()).isEqualTo(byKey.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow());
      if (byKey.size() < 2) {
        assertThat(cut.splitKey()).isEmpty();
        return;
      }
      Key at = cut.splitKey().orElseThrow();
      assertThat(at).isGreaterThan(byKey.firstKey());
      double left = byKey.headMap(at).values().stream().mapToDouble(Double::doubleValue).sum();
      assertThat(cut.leftWeight()).isCloseTo(left, within(1e-6 * total));
      assertThat(Math.min(cut.leftWeight(), cut.rightWeight())).isCloseTo(bestMin, within(1e-6 * total));
    });
  }

  @Test
  void uniformSamples_splitNearTheMiddle() {
    List<WeightedKey> samples = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      samples.add(new WeightedKey(Key.utf8(String.format("k%03d", i)), 1));
    }
    LoadCut cut = LoadCut.of(samples);
    assertThat(cut.splitKey()).contains(Key.utf8("k100"));
    assertThat(cut.minShare()).isEqualTo(0.5);
  }
}
