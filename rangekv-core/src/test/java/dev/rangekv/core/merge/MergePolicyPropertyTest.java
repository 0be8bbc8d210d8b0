package dev.rangekv.core.merge;

import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterFixtures;
import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MergePolicyPropertyTest {
  private static final long NOW = 100_000_000;
  private static final List<String> NODES = List.of("n1", "n2", "n3", "n4", "n5");

  @Test
  void mergesObeyEveryRule_onRandomMaps() {
    ControllerConfig config = ControllerConfig.builder().maxBytes(1000).splitQps(1000).build();
    Property.named("merge-rules").cases(1000).sizes(2, 40).check(g -> {
      int n = g.between(2, g.size());
      List<RangeStats> ranges = new ArrayList<>();
      List<SplitEvent> splits = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        List<String> replicas = new ArrayList<>(NODES);
        java.util.Collections.shuffle(replicas, new java.util.Random(g.nextLong()));
        RangeDescriptor d = ClusterFixtures.range(i + 1, i * 10L, i == n - 1 ? -1 : (i + 1) * 10L,
            replicas.subList(0, g.chance(0.8) ? 3 : g.between(1, 3)).toArray(String[]::new));
        long bytes = g.chance(0.7) ? g.nextInt(300) : g.nextInt(2000);
        double qps = g.chance(0.7) ? g.nextInt(120) : g.nextInt(3000);
        ranges.add(ClusterFixtures.stats(d, bytes, qps));
        if (i > 0 && g.chance(0.2)) {
          splits.add(new SplitEvent(i, i + 1, g.pick(List.of(SplitCause.values())),
              NOW - g.nextInt((int) (2 * config.splitCooldownMillis()))));
        }
      }
      ClusterSnapshot s = new ClusterSnapshot(nodes(NOW, NODES.toArray(String[]::new)), ranges, List.of(), splits);
      Set<Long> used = new HashSet<>();
      for (MergeDecision d : MergePolicy.evaluate(s, config, NOW)) {
        RangeStats a = s.range(d.leftRangeId()).orElseThrow();
        RangeStats b = s.range(d.rightRangeId()).orElseThrow();
        assertThat(ranges.indexOf(b)).isEqualTo(ranges.indexOf(a) + 1);
        assertThat(a.bytes()).isLessThan(config.minBytes());
        assertThat(b.bytes()).isLessThan(config.minBytes());
        if (d instanceof MergeDecision.Declined) {
          continue;
        }
        assertThat(used.add(a.rangeId()) && used.add(b.rangeId())).as("range in two merges").isTrue();
        assertThat(a.bytes() + b.bytes()).isLessThan(config.maxBytes());
        assertThat(a.qps()).isLessThan(config.mergeQps());
        assertThat(b.qps()).isLessThan(config.mergeQps());
        assertThat(s.recentSplit(a.rangeId(), NOW, config.splitCooldownMillis())).isEmpty();
        assertThat(s.recentSplit(b.rangeId(), NOW, config.splitCooldownMillis())).isEmpty();
        if (d instanceof MergeDecision.CoLocateFirst c) {
          RangeDescriptor mover = c.moves().get(0).rangeId() == a.rangeId() ? a.range() : b.range();
          RangeDescriptor other = mover == a.range() ? b.range() : a.range();
          List<String> after = MergePolicyTest.apply(mover, c.moves());
          assertThat(new HashSet<>(after)).hasSize(after.size()).isEqualTo(new HashSet<>(other.replicas()));
        } else {
          assertThat(new HashSet<>(a.range().replicas())).isEqualTo(new HashSet<>(b.range().replicas()));
        }
      }
    });
  }
}
