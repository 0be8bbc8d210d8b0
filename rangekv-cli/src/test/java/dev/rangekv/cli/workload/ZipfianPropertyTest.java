package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Property;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rejection-inversion sampler against the exact Zipf probabilities, computed by brute force. */
class ZipfianPropertyTest {
  private static final int SAMPLES = 20_000;

  @Test
  void sampleFrequencies_matchTheExactZipfProbabilities() {
    Property.named("zipfian frequencies").cases(150).sizes(1, 40).check(gen -> {
      long n = gen.size();
      double theta = gen.pick(List.of(0.5, 0.99, 1.0, 1.3));
      Zipfian z = new Zipfian(n, theta);
      long[] counts = new long[(int) n + 1];
      for (int i = 0; i < SAMPLES; i++) {
        long k = z.sample(gen.random());
        assertThat(k).isBetween(1L, n);
        counts[(int) k]++;
      }
      for (long k = 1; k <= n; k++) {
        double p = Zipfian.probability(k, n, theta);
        double expected = SAMPLES * p;
        double sd = Math.sqrt(SAMPLES * p * (1 - p));
        // six standard deviations: a wrong sampler is off by far more at 20,000 samples, chance is not
        assertThat((double) counts[(int) k]).as("rank %d of n=%d theta=%s", k, n, theta)
            .isBetween(expected - 6 * sd - 3, expected + 6 * sd + 3);
      }
    });
  }

  @Test
  void hugeKeySpaces_stayInRange_andFavourTheFirstRank() {
    Property.named("zipfian range").cases(50).check(gen -> {
      long n = 1 + Math.floorMod(gen.nextLong(), 9_999_999_999L);
      Zipfian z = new Zipfian(n, 0.99);
      int ones = 0;
      for (int i = 0; i < 2_000; i++) {
        long k = z.sample(gen.random());
        assertThat(k).isBetween(1L, n);
        ones += k == 1 ? 1 : 0;
      }
      // P(1) >= 1 / H(10^10, 0.99) > 0.035: at least a few percent of 2,000 samples
      assertThat(ones).isGreaterThan(20);
    });
  }

  @Test
  void badParameters_areRejected() {
    assertThatThrownBy(() -> new Zipfian(0, 0.99)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Zipfian(10, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
