package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MetaView;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the core {@link ClusterSnapshot} from the meta range's view (with its placement rules), the
 * leaders' latest stats, the moves in flight and the recent splits. Pure given its inputs.
 *
 * <p>A range is <em>measured</em> when its leader's latest report covers exactly the meta descriptor's
 * span (a replica change keeps the span, so its stats stay valid). Otherwise (no report yet, or the
 * report predates a split or merge) it enters the snapshot with zero bytes and load and is listed in
 * {@link Built#unmeasured()}: the controller executes no split, merge or rebalancing decision on it,
 * only repair, so a stale pre-split size never splits a half again.
 */
public final class SnapshotBuilder {
  private SnapshotBuilder() {}

  /**
   * A snapshot and the ranges whose numbers are not known.
   *
   * @param snapshot what the planner gets
   * @param unmeasured ids of ranges entered with zero stats
   */
  public record Built(ClusterSnapshot snapshot, Set<Long> unmeasured) {
    public Built {
      unmeasured = Set.copyOf(unmeasured);
    }
  }

  public static Built build(MetaView view, StatsBook stats, List<Move> movesInFlight, List<SplitEvent> recentSplits) {
    List<NodeStats> nodes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (NodeInfo n : view.nodes()) {
      if (!n.nodeId().isEmpty() && seen.add(n.nodeId())) {
        nodes.add(n.stats());
      }
    }
    List<RangeStats> ranges = new ArrayList<>();
    Set<Long> unmeasured = new HashSet<>();
    for (RangeDescriptor d : view.ranges()) {
      if (view.provisional(d.rangeId())) {
        continue;
      }
      Optional<StatsBook.LeaderReport> report = stats.leaderReport(d.rangeId())
          .filter(r -> sameSpan(r.stats().range(), d));
      if (report.isPresent()) {
        ranges.add(rangeStats(d, report.get().stats(), report.get().nodeId()));
      } else {
        unmeasured.add(d.rangeId());
        ranges.add(RangeStats.of(d, 0, 0, ""));
      }
    }
    return new Built(new ClusterSnapshot(nodes, ranges, movesInFlight, recentSplits, view.placementRules()),
        unmeasured);
  }

  /** True when the heartbeat's descriptor {@code reported} spans what the map's {@code d} does. */
  static boolean sameSpan(RangeDescriptor reported, RangeDescriptor d) {
    return reported.start().equals(d.start()) && reported.end().equals(d.end());
  }

  /**
   * Reported stats attached to the meta descriptor {@code d}, led by the reporter when {@code d} lists
   * it. (The heartbeat edge already clamped out-of-contract numbers, so one node's bad report does not
   * fail a whole tick.)
   */
  public static RangeStats rangeStats(RangeDescriptor d, RangeStats reported, String reporterNodeId) {
    String leader = d.replicas().contains(reporterNodeId) ? reporterNodeId : "";
    return reported.withRange(d).withLeader(leader);
  }
}
