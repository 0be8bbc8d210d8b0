package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WeightedKeyProto;
import dev.rangekv.proto.convert.ProtoValues;
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
          .filter(r -> sameSpan(r.stats().getRange(), d));
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
  static boolean sameSpan(RangeDescriptorProto reported, RangeDescriptor d) {
    return ProtoValues.key(reported.getStart()).equals(d.start())
        && ProtoValues.end(reported.getEnd(), reported.getEndInfinite()).equals(d.end());
  }

  /**
   * Reported stats in core types, attached to the meta descriptor {@code d}. Out-of-contract numbers
   * (negative, NaN, non-positive sample weights, appends above writes) are clamped or dropped rather
   * than failing the whole tick on one node's bad report.
   */
  public static RangeStats rangeStats(RangeDescriptor d, RangeStatsProto p, String reporterNodeId) {
    String leader = d.replicas().contains(reporterNodeId) ? reporterNodeId : "";
    List<WeightedKey> samples = new ArrayList<>(p.getSampledKeysCount());
    for (WeightedKeyProto w : p.getSampledKeysList()) {
      if (w.getWeight() > 0 && !Double.isInfinite(w.getWeight())) {
        samples.add(new WeightedKey(ProtoValues.key(w.getKey()), w.getWeight()));
      }
    }
    TailWrites tail = TailWrites.NONE;
    if (p.getTailWrites() > 0 && !p.getMaxWrittenKey().isEmpty()) {
      Key max = ProtoValues.key(p.getMaxWrittenKey());
      tail = new TailWrites(p.getTailWrites(), Math.min(p.getTailAppends(), p.getTailWrites()), Optional.of(max));
    }
    return new RangeStats(d, Math.max(0, p.getBytes()), Math.max(0, p.getKeys()), rate(p.getReadQps()),
        rate(p.getWriteQps()), leader, samples, tail);
  }

  private static double rate(double qps) {
    return qps >= 0 && !Double.isInfinite(qps) ? qps : 0;
  }
}
