package dev.rangekv.core.rebalance;

import static dev.rangekv.core.cluster.ClusterFixtures.tiled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmoothedLoadTest {
  private static final RangeDescriptor R = tiled(1, "n1", "n2", "n3").get(0);
  private static final RangeDescriptor OTHER_BOUNDS = tiled(2, "n1", "n2", "n3").get(0); // the same id, a shorter span

  private static List<RangeStats> at(RangeDescriptor d, double qps) {
    return List.of(RangeStats.of(d, 100, qps, "n1"));
  }

  private static double qps(SmoothedLoad s, RangeDescriptor d) {
    return s.apply(at(d, 0)).get(0).qps();
  }

  @Test
  void aRateFlickeringEveryTick_isBalancedOnItsAverage() {
    SmoothedLoad s = SmoothedLoad.EMPTY;
    long now = 0;
    for (int tick = 0; tick < 100; tick++) {
      now += 1000;
      s = s.observe(at(R, tick % 2 == 0 ? 100 : 0), now);
    }
    assertThat(qps(s, R)).isBetween(45.0, 55.0);
  }

  @Test
  void aRangeWhoseBoundsChanged_startsFromItsCurrentRate() {
    SmoothedLoad s = SmoothedLoad.EMPTY.observe(at(R, 100), 0).observe(at(OTHER_BOUNDS, 10), 1000);
    assertThat(qps(s, OTHER_BOUNDS)).isCloseTo(10, within(1e-9));
    assertThat(s.apply(at(R, 7)).get(0).qps()).as("stale bounds: the rates as they are").isEqualTo(7);
  }

  @Test
  void theSmoothedRate_isTheClosedFormAverageOfEveryTickSinceTheBoundsLastChanged() {
    Property.named("smoothed load").cases(300).sizes(1, 60).check(g -> {
      SmoothedLoad s = SmoothedLoad.EMPTY;
      List<double[]> since = new ArrayList<>(); // {time, qps} since the last change of bounds
      long now = 0;
      RangeDescriptor bounds = R;
      for (int i = 0; i < g.size(); i++) {
        now += g.between(0, 40_000);
        if (g.chance(0.1)) {
          bounds = bounds == R ? OTHER_BOUNDS : R;
          since.clear();
        }
        double qps = g.between(0, 1000);
        s = s.observe(at(bounds, qps), now);
        since.add(new double[] {now, qps});
        // weight of tick i: (1 - k_i) * prod_{j > i} k_j, with k_j = 2^(-(t_j - t_{j-1}) / half-life), k_0 = 0
        double expected = 0;
        for (int a = 0; a < since.size(); a++) {
          double w = a == 0 ? 1 : 1 - Math.pow(0.5, (since.get(a)[0] - since.get(a - 1)[0]) / SmoothedLoad.HALF_LIFE_MILLIS);
          for (int b = a + 1; b < since.size(); b++) {
            w *= Math.pow(0.5, (since.get(b)[0] - since.get(b - 1)[0]) / SmoothedLoad.HALF_LIFE_MILLIS);
          }
          expected += w * since.get(a)[1];
        }
        assertThat(qps(s, bounds)).isCloseTo(expected, within(1e-6 * (1 + expected)));
      }
    });
  }
}
