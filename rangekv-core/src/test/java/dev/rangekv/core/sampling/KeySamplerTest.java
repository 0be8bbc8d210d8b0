package dev.rangekv.core.sampling;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.split.LoadCut;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Statistical checks with fixed seeds: the sample's weights estimate span loads without bias. */
class KeySamplerTest {

  /** Weight of one request to key i: keys 0..9999 average 4, key 42 about 30% of all load. */
  private static double weight(int i) {
    return i == 42 ? 0.3 * 40_000 / 0.7 : 1 + (i % 7);
  }

  /** 30,000 requests to random keys, offered to the sampler; {@code truth[i]} gets key i's exact load. */
  private static KeySampler fill(long seed, int capacity, double[] truth) {
    KeySampler s = new KeySampler(capacity, new SplittableRandom(seed));
    SplittableRandom order = new SplittableRandom(seed ^ 0x5DEECE66DL);
    for (int i = 0; i < 30_000; i++) {
      int key = order.nextInt(10_000);
      s.offer(k(key), weight(key));
      truth[key] += weight(key);
    }
    return s;
  }

  private static KeySampler fill(long seed, int capacity) {
    return fill(seed, capacity, new double[10_000]);
  }

  private static double sum(List<WeightedKey> sample, long lo, long hi) {
    return sample.stream().filter(w -> !w.key().isBefore(k(lo)) && w.key().isBefore(k(hi)))
        .mapToDouble(WeightedKey::weight).sum();
  }

  @Test
  void fewerOffersThanCapacity_giveTheExactWeights() {
    KeySampler s = new KeySampler(100, new SplittableRandom(1));
    s.offer(k(1), 2);
    s.offer(k(2), 3);
    assertThat(s.sample()).containsExactlyInAnyOrder(new WeightedKey(k(1), 2), new WeightedKey(k(2), 3));
    assertThat(s.offered()).isEqualTo(2);
    assertThat(s.totalWeight()).isEqualTo(5);
  }

  @Test
  void sample_isBoundedAndSpanEstimatesAreClose() {
    double[] truth = new double[10_000];
    KeySampler s = fill(7, 512, truth);
    List<WeightedKey> sample = s.sample();
    assertThat(sample).hasSizeLessThanOrEqualTo(512);
    double total = s.totalWeight();
    assertThat(sum(sample, 0, 10_000)).isCloseTo(total, within(0.1 * total));
    assertThat(sum(sample, 42, 43)).isCloseTo(truth[42], within(0.05 * total));
    for (int lo = 0; lo < 10_000; lo += 2500) {
      double span = 0;
      for (int i = lo; i < lo + 2500; i++) {
        span += truth[i];
      }
      assertThat(sum(sample, lo, lo + 2500)).as("span from %d", lo).isCloseTo(span, within(0.2 * span));
    }
  }

  @Test
  void totalEstimate_isUnbiasedOverManySeeds() {
    double mean = 0;
    double exact = 0;
    int trials = 100;
    for (int t = 0; t < trials; t++) {
      KeySampler s = fill(1000 + t, 128);
      mean += s.sample().stream().mapToDouble(WeightedKey::weight).sum() / trials;
      exact += s.totalWeight() / trials;
    }
    assertThat(mean).isCloseTo(exact, within(0.03 * exact));
  }

  @Test
  void hotKey_isVisibleToTheLoadCut() {
    double[] truth = new double[10_000];
    KeySampler s = fill(11, 256, truth);
    LoadCut cut = LoadCut.of(s.sample());
    assertThat(cut.heaviestKey()).isEqualTo(k(42));
    assertThat(cut.heaviestShare()).isCloseTo(truth[42] / s.totalWeight(), within(0.07));
  }

  @Test
  void drain_returnsTheSampleAndResets() {
    KeySampler s = new KeySampler(4, new SplittableRandom(3));
    for (int i = 0; i < 100; i++) {
      s.offer(Key.utf8("k" + i), 1);
    }
    assertThat(s.drain()).hasSize(4);
    assertThat(s.offered()).isZero();
    assertThat(s.sample()).isEmpty();
  }
}
