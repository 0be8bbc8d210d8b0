package dev.rangekv.core.controller;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static dev.rangekv.core.cluster.ClusterFixtures.tiled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.split.SplitDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ControllerPlannerTest {
  private static final long NOW = 5_000_000;
  private final ControllerConfig config = ControllerConfig.builder().maxBytes(1000).splitQps(1000).build();

  private static List<WeightedKey> spread(long from, long to) {
    List<WeightedKey> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(new WeightedKey(k(i), 1));
    }
    return out;
  }

  private ClusterSnapshot snapshot(double hotQps) {
    RangeStats hot = new RangeStats(range(1, 0, 1000, "n1", "n2", "n3"), 100, 10, hotQps / 2, hotQps / 2, "n1",
        spread(100, 400), TailWrites.NONE);
    RangeStats small = RangeStats.of(range(2, 1000, 2000, "n1", "n2", "n3"), 10, 0, "n2");
    RangeStats small2 = RangeStats.of(range(3, 2000, -1, "n1", "n2", "n3"), 10, 0, "n3");
    return ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3"), List.of(hot, small, small2));
  }

  @Test
  void stateCarriesTheLoadCount_andTheSplitComesOnTheThirdTick() {
    ControllerState state = ControllerState.INITIAL;
    for (int tick = 1; tick <= 3; tick++) {
      TickPlan p = ControllerPlanner.tick(snapshot(5000), state, config, NOW + tick);
      assertThat(p.splits()).hasSize(3);
      SplitDecision first = p.splits().get(0);
      if (tick < 3) {
        assertThat(first).isInstanceOf(SplitDecision.NoSplit.class);
        assertThat(p.next().loadSplits().get(1L).hotTicks()).isEqualTo(tick);
      } else {
        assertThat(first).isInstanceOfSatisfying(SplitDecision.Split.class,
            s -> assertThat(s.splitKey()).isEqualTo(k(250)));
      }
      // the hot range is declined as a merge partner while counting, and skipped once it splits
      assertThat(p.merges()).hasSize(tick < 3 ? 2 : 1);
      assertThat(p.merges().get(p.merges().size() - 1)).isInstanceOfSatisfying(MergeDecision.Merge.class,
          m -> assertThat(m.leftRangeId()).isEqualTo(2));
      state = p.next();
    }
  }

  @Test
  void rangeBeingRepaired_isNotMergedOrRebalanced() {
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, "n1", "n2", "n4"));
    ns.add(NodeStats.of("n3", 0));
    ClusterSnapshot s = snapshot(0).withNodes(ns);
    TickPlan p = ControllerPlanner.tick(s, ControllerState.INITIAL, config, NOW);
    assertThat(p.repair().moves()).hasSize(3).allSatisfy(m -> assertThat(m.toNode()).isEqualTo("n4"));
    assertThat(p.merges()).isEmpty();
    assertThat(p.rebalance().moves()).isEmpty();
  }

  @Test
  void aPlannedLeaderTransfer_isNotPlannedAgain_whileTheOldLeaderIsStillReported() {
    List<RangeStats> rs = new ArrayList<>();
    for (RangeDescriptor d : tiled(9, "n1", "n2", "n3")) {
      rs.add(RangeStats.of(d, 100, 10, "n1"));
    }
    ClusterSnapshot s = ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3"), rs);
    TickPlan first = ControllerPlanner.tick(s, ControllerState.INITIAL, config, NOW);
    Set<Long> transferred = first.rebalance().leaderTransfers().stream().map(LeaderTransfer::rangeId)
        .collect(Collectors.toSet());
    assertThat(transferred).isNotEmpty();
    // heartbeats still name n1 a tick later: the transfers are under way, not to be asked for again
    TickPlan second = ControllerPlanner.tick(s.withNodes(nodes(NOW + 1000, "n1", "n2", "n3")), first.next(), config,
        NOW + 1000);
    assertThat(second.rebalance().leaderTransfers()).extracting(LeaderTransfer::rangeId)
        .doesNotContainAnyElementsOf(transferred);
  }

  @Test
  void sameInputs_giveTheSamePlan() {
    TickPlan a = ControllerPlanner.tick(snapshot(5000), ControllerState.INITIAL, config, NOW);
    TickPlan b = ControllerPlanner.tick(snapshot(5000), ControllerState.INITIAL, config, NOW);
    assertThat(a).isEqualTo(b);
  }
}
