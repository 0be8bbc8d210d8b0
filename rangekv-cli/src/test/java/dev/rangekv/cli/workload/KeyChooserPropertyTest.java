package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Property;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Key choosers against brute-force models: the exact distribution each is meant to draw from. */
class KeyChooserPropertyTest {
  private static final int SAMPLES = 20_000;

  @Test
  void scramble_isABijectionOfTheKeySpace() {
    Property.named("scramble bijection").cases(300).sizes(1, 2_000).check(gen -> {
      long n = gen.size();
      long a = KeyChooser.ScrambledZipfian.coprimeMultiplier(n);
      Set<Long> seen = new HashSet<>();
      for (long r = 0; r < n; r++) {
        long idx = KeyChooser.ScrambledZipfian.scramble(r, n, a);
        assertThat(idx).isBetween(0L, n - 1);
        seen.add(idx);
      }
      assertThat(seen).hasSize((int) n);
    });
  }

  @Test
  void scrambledZipfian_givesEachKeyItsRanksProbability() {
    Property.named("scrambled zipfian").cases(100).sizes(1, 30).check(gen -> {
      long n = gen.size();
      long a = KeyChooser.ScrambledZipfian.coprimeMultiplier(n);
      double[] model = new double[(int) n];
      for (long r = 1; r <= n; r++) {
        model[(int) KeyChooser.ScrambledZipfian.scramble(r - 1, n, a)] = Zipfian.probability(r, n, KeyChooser.THETA);
      }
      assertFrequencies(KeyChooser.of(KeyChooser.Distribution.ZIPFIAN), n, model, gen.random());
    });
  }

  @Test
  void latest_favoursTheNewestKey() {
    Property.named("latest").cases(100).sizes(1, 30).check(gen -> {
      long n = gen.size();
      double[] model = new double[(int) n];
      for (long r = 1; r <= n; r++) {
        model[(int) (n - r)] = Zipfian.probability(r, n, KeyChooser.THETA);
      }
      assertFrequencies(KeyChooser.of(KeyChooser.Distribution.LATEST), n, model, gen.random());
    });
  }

  @Test
  void uniform_givesEveryKeyTheSameChance() {
    Property.named("uniform").cases(100).sizes(1, 30).check(gen -> {
      long n = gen.size();
      double[] model = new double[(int) n];
      java.util.Arrays.fill(model, 1.0 / n);
      assertFrequencies(KeyChooser.of(KeyChooser.Distribution.UNIFORM), n, model, gen.random());
    });
  }

  @Test
  void aChooser_followsAGrowingKeySpace() {
    Property.named("growing key space").cases(200).check(gen -> {
      KeyChooser c = KeyChooser.of(gen.pick(java.util.List.of(KeyChooser.Distribution.values())));
      long n = 1;
      for (int i = 0; i < 200; i++) {
        n += gen.nextInt(3);
        assertThat(c.next(gen.random(), n)).isBetween(0L, n - 1);
      }
    });
  }

  private static void assertFrequencies(KeyChooser chooser, long n, double[] model, java.util.random.RandomGenerator r) {
    long[] counts = new long[(int) n];
    for (int i = 0; i < SAMPLES; i++) {
      long idx = chooser.next(r, n);
      assertThat(idx).isBetween(0L, n - 1);
      counts[(int) idx]++;
    }
    for (int i = 0; i < n; i++) {
      double expected = SAMPLES * model[i];
      double sd = Math.sqrt(SAMPLES * model[i] * (1 - model[i]));
      assertThat((double) counts[i]).as("key %d of %d", i, n).isBetween(expected - 6 * sd - 3, expected + 6 * sd + 3);
    }
  }
}
