package dev.rangekv.core.hotspot;

import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HotspotDetectorTest {
  private final ControllerConfig config = ControllerConfig.builder().splitQps(1000).build();

  private static Key event(long ts) {
    return Key.utf8("events/" + ts);
  }

  /** Four ranges over "events/..." keys; writes at timestamps {@code ts..ts+199} go to the last one. */
  private static ClusterSnapshot monotonicTick(long ts) {
    return monotonicTick(ts, 20_000);
  }

  /** As above, with only {@code appends} of the last range's 20,000 writes above what it held before. */
  private static ClusterSnapshot monotonicTick(long ts, long appends) {
    List<RangeStats> rs = new ArrayList<>();
    Key[] bounds = {Key.EMPTY, event(1000), event(2000), event(3000)};
    for (int i = 0; i < 4; i++) {
      RangeDescriptor d = new RangeDescriptor(i + 1, bounds[i],
          i == 3 ? dev.rangekv.core.key.RangeEnd.INFINITY : dev.rangekv.core.key.RangeEnd.at(bounds[i + 1]),
          List.of("n1"), 1);
      if (i == 3) {
        List<WeightedKey> keys = new ArrayList<>();
        for (long t = ts; t < ts + 200; t++) {
          keys.add(new WeightedKey(event(t), 1));
        }
        rs.add(new RangeStats(d, 100, 10, 5, 2000, "n1", keys, new TailWrites(20_000, appends, Optional.of(event(ts + 199)))));
      } else {
        rs.add(new RangeStats(d, 100, 10, 50, 10, "n1", List.of(), TailWrites.NONE));
      }
    }
    return ClusterSnapshot.of(nodes(0, "n1"), rs);
  }

  @Test
  void tailHottestForMostOfTheWindow_raisesAMonotonicKeyAlertNamingThePrefix() {
    MonotonicWindow w = MonotonicWindow.EMPTY;
    for (int tick = 0; tick < config.hotspotWindow(); tick++) {
      MonotonicOutcome o = MonotonicKeyDetector.observe(monotonicTick(5000 + tick * 200L), w, config);
      w = o.next();
      if (tick < config.hotspotWindow() - 1) {
        assertThat(o.alert()).as("no alert before the window is full").isEmpty();
      } else {
        assertThat(o.alert()).hasValueSatisfying(a -> {
          assertThat(a.rangeId()).isEqualTo(4);
          assertThat(a.keyPrefix().toUtf8()).startsWith("events/");
          assertThat(a.suggestion()).contains("hash bucket");
          assertThat(a.why().figure("tailHotTicks")).contains(10.0);
        });
      }
    }
  }

  @Test
  void aHotLastRangeFilledByRandomKeys_raisesNoMonotonicAlert() {
    MonotonicWindow w = MonotonicWindow.EMPTY;
    for (int tick = 0; tick < 2 * config.hotspotWindow(); tick++) {
      // hottest and holding the highest key, but only 5% of its writes land above what it held
      MonotonicOutcome o = MonotonicKeyDetector.observe(monotonicTick(5000 + tick * 200L, 1_000), w, config);
      w = o.next();
      assertThat(o.alert()).isEmpty();
    }
  }

  @Test
  void evenlySpreadWrites_raiseNoMonotonicAlert() {
    SplittableRandom random = new SplittableRandom(5);
    MonotonicWindow w = MonotonicWindow.EMPTY;
    for (int tick = 0; tick < 30; tick++) {
      List<RangeStats> rs = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        RangeDescriptor d = range(i + 1, i * 1000L, i == 3 ? -1 : (i + 1) * 1000L, "n1");
        rs.add(new RangeStats(d, 100, 10, 0, 900 + random.nextInt(200), "n1", List.of(), TailWrites.NONE));
      }
      MonotonicOutcome o = MonotonicKeyDetector.observe(ClusterSnapshot.of(nodes(0, "n1"), rs), w, config);
      assertThat(o.alert()).isEmpty();
      w = o.next();
    }
  }

  @Test
  void oneKeyCarryingMostLoad_raisesAHotKeyAlertNamingIt() {
    List<WeightedKey> keys = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      keys.add(new WeightedKey(Key.utf8("user/" + i), 1));
    }
    keys.add(new WeightedKey(Key.utf8("counter/likes"), 300));
    RangeStats r = new RangeStats(range(1, 0, -1, "n1"), 10, 10, 1000, 1000, "n1", keys, TailWrites.NONE);
    assertThat(HotKeyDetector.detect(r, config)).hasValueSatisfying(a -> {
      assertThat(a.key()).isEqualTo(Key.utf8("counter/likes"));
      assertThat(a.suggestion()).contains("write-shard");
      assertThat(a.why().figure("keyShare").orElseThrow()).isCloseTo(0.75, org.assertj.core.api.Assertions.within(0.001));
    });
    RangeStats cold = new RangeStats(range(1, 0, -1, "n1"), 10, 10, 1, 1, "n1", keys, TailWrites.NONE);
    assertThat(HotKeyDetector.detect(cold, config)).isEmpty();
  }

  @Test
  void spreadLoad_raisesNoHotKeyAlert() {
    List<WeightedKey> keys = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add(new WeightedKey(Key.utf8("user/" + i), 1 + i % 3));
    }
    RangeStats r = new RangeStats(range(1, 0, -1, "n1"), 10, 10, 1000, 1000, "n1", keys, TailWrites.NONE);
    assertThat(HotKeyDetector.detect(List.of(r), config)).isEmpty();
  }
}
