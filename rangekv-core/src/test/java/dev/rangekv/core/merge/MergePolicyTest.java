package dev.rangekv.core.merge;

import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static dev.rangekv.core.cluster.ClusterFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class MergePolicyTest {
  private static final long NOW = 10_000_000;
  private final ControllerConfig config = ControllerConfig.builder().maxBytes(1000).splitQps(1000).build();

  private ClusterSnapshot snapshot(List<RangeStats> ranges, List<SplitEvent> splits) {
    return new ClusterSnapshot(nodes(NOW, "n1", "n2", "n3", "n4"), ranges, List.of(), splits);
  }

  @Test
  void smallColdCoLocatedNeighbours_merge() {
    List<RangeStats> rs = List.of(stats(range(1, 0, 100, "n1", "n2"), 100, 1),
        stats(range(2, 100, -1, "n2", "n1"), 100, 1));
    List<MergeDecision> ds = MergePolicy.evaluate(snapshot(rs, List.of()), config, NOW);
    assertThat(ds).singleElement().isInstanceOfSatisfying(MergeDecision.Merge.class, m -> {
      assertThat(m.leftRangeId()).isEqualTo(1);
      assertThat(m.rightRangeId()).isEqualTo(2);
      assertThat(m.why().toString()).contains("leftBytes=100").contains("minBytes=250");
    });
  }

  @Test
  void splitThenImmediatelySmall_isNotMergedWithinTheCooldown() {
    List<RangeStats> rs = List.of(stats(range(1, 0, 100, "n1"), 10, 0), stats(range(2, 100, -1, "n1"), 10, 0));
    SplitEvent split = new SplitEvent(1, 2, SplitCause.LOAD, NOW - 1000);
    assertThat(MergePolicy.evaluate(snapshot(rs, List.of(split)), config, NOW)).singleElement()
        .isInstanceOfSatisfying(MergeDecision.Declined.class,
            d -> assertThat(d.why().toString()).contains("cooldown").contains("load split").contains("splitAgoMillis=1000"));
    long later = NOW + config.splitCooldownMillis();
    ClusterSnapshot s = new ClusterSnapshot(nodes(later, "n1"), rs, List.of(), List.of(split));
    assertThat(MergePolicy.evaluate(s, config, later)).singleElement().isInstanceOf(MergeDecision.Merge.class);
  }

  @Test
  void warmNeighbours_areDeclined() {
    List<RangeStats> rs = List.of(stats(range(1, 0, 100, "n1"), 10, 500), stats(range(2, 100, -1, "n1"), 10, 0));
    assertThat(MergePolicy.evaluate(snapshot(rs, List.of()), config, NOW)).singleElement()
        .isInstanceOfSatisfying(MergeDecision.Declined.class, d -> assertThat(d.why().reason()).contains("not cold"));
  }

  @Test
  void neighboursOnDifferentNodes_areCoLocatedFirst() {
    List<RangeStats> rs = List.of(stats(range(1, 0, 100, "n1", "n2", "n3"), 100, 0),
        stats(range(2, 100, -1, "n2", "n3", "n4"), 50, 0));
    MergeDecision d = MergePolicy.evaluate(snapshot(rs, List.of()), config, NOW).get(0);
    assertThat(d).isInstanceOfSatisfying(MergeDecision.CoLocateFirst.class, c -> {
      assertThat(c.moves()).singleElement().satisfies(m -> {
        assertThat(m.rangeId()).isEqualTo(2);
        assertThat(m.fromNode()).contains("n4");
        assertThat(m.toNode()).isEqualTo("n1");
      });
      List<String> after = apply(rs.get(1).range(), c.moves());
      assertThat(new HashSet<>(after)).isEqualTo(new HashSet<>(rs.get(0).range().replicas()));
    });
  }

  @Test
  void eachRange_takesPartInOneMergeAtMost() {
    List<RangeStats> rs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rs.add(stats(range(i + 1, i * 100L, i == 4 ? -1 : (i + 1) * 100L, "n1"), 10, 0));
    }
    List<MergeDecision> ds = MergePolicy.evaluate(snapshot(rs, List.of()), config, NOW);
    assertThat(ds).hasSize(2).allMatch(d -> d instanceof MergeDecision.Merge);
    assertThat(ds.get(0).rightRangeId()).isEqualTo(2);
    assertThat(ds.get(1).leftRangeId()).isEqualTo(3);
  }

  static List<String> apply(RangeDescriptor r, List<Move> moves) {
    List<String> out = new ArrayList<>(r.replicas());
    for (Move m : moves) {
      m.fromNode().ifPresent(out::remove);
      out.add(m.toNode());
    }
    return out;
  }
}
