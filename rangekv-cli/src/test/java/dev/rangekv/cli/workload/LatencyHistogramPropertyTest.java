package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Property;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Percentiles from the bucketed histogram against the exact ones of the sorted values. */
class LatencyHistogramPropertyTest {
  private static final List<Double> QUANTILES = List.of(0.0, 0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0);

  @Test
  void percentiles_areWithinOnePart_in128_ofTheExactOnes() {
    Property.named("histogram percentiles").cases(300).sizes(1, 3_000).check(gen -> {
      int n = gen.size();
      long[] values = new long[n];
      LatencyHistogram h = new LatencyHistogram();
      for (int i = 0; i < n; i++) {
        // log-uniform over 1 µs .. ~17 min, and some exact small values
        values[i] = gen.chance(0.2) ? gen.nextInt(200) : (long) Math.exp(gen.random().nextDouble() * Math.log(1e9));
        h.record(values[i]);
      }
      Arrays.sort(values);
      LatencyHistogram.Snapshot s = h.snapshot();
      assertThat(s.count()).isEqualTo(n);
      for (double q : QUANTILES) {
        long exact = values[(int) Math.max(0, Math.ceil(q * n) - 1)];
        assertThat((double) s.percentile(q)).as("q=%s", q).isCloseTo(exact, org.assertj.core.data.Offset.offset(exact / 128.0 + 1e-9));
      }
      assertThat((double) s.max()).isCloseTo(values[n - 1], org.assertj.core.data.Offset.offset(values[n - 1] / 128.0 + 1e-9));
    });
  }

  @Test
  void bucketIndexes_areMonotonic_andEachValueMapsNearItself() {
    Property.named("histogram buckets").cases(2_000).check(gen -> {
      long v = gen.chance(0.5) ? gen.nextInt(1 << 20) : gen.nextLong() >>> 1;
      long w = v + 1 + (gen.nextLong() >>> 40);
      int iv = LatencyHistogram.index(v);
      assertThat(iv).isBetween(0, LatencyHistogram.BUCKETS - 1);
      assertThat(LatencyHistogram.index(Math.max(w, v))).isGreaterThanOrEqualTo(iv);
      assertThat((double) LatencyHistogram.value(iv)).isCloseTo(v, org.assertj.core.data.Offset.offset(v / 128.0 + 1e-9));
    });
  }

  @Test
  void minus_isTheIntervalBetweenTwoSnapshots() {
    LatencyHistogram h = new LatencyHistogram();
    h.record(100);
    h.record(5_000);
    LatencyHistogram.Snapshot first = h.snapshot();
    h.record(70_000);
    h.record(70_000);
    LatencyHistogram.Snapshot interval = h.snapshot().minus(first);
    assertThat(interval.count()).isEqualTo(2);
    assertThat(interval.percentile(0.5)).isCloseTo(70_000L, org.assertj.core.data.Offset.offset(600L));
    assertThat(first.plus(interval).count()).isEqualTo(4);
    assertThat(LatencyHistogram.Snapshot.empty().percentile(0.99)).isZero();
  }
}
