package dev.rangekv.core.controller;

import dev.rangekv.core.hotspot.HotKeyDetector;
import dev.rangekv.core.hotspot.HotspotAlert;
import dev.rangekv.core.hotspot.MonotonicKeyDetector;
import dev.rangekv.core.hotspot.MonotonicOutcome;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.merge.MergePolicy;
import dev.rangekv.core.policy.ClusterSnapshot;
import dev.rangekv.core.policy.ControllerConfig;
import dev.rangekv.core.policy.Move;
import dev.rangekv.core.policy.RangeStats;
import dev.rangekv.core.rebalance.RebalancePlan;
import dev.rangekv.core.rebalance.RebalancePolicy;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.rebalance.RepairPolicy;
import dev.rangekv.core.split.LoadSplitState;
import dev.rangekv.core.split.SplitDecision;
import dev.rangekv.core.split.SplitOutcome;
import dev.rangekv.core.split.SplitPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One controller tick as a pure function: {@code tick(snapshot, state, config, now)}.
 *
 * <p>Order and exclusions, so decisions of one tick never collide: repair moves first; a range being
 * repaired or split this tick takes part in no merge; ranges being split, merged or co-located are left
 * alone by the rebalancer, whose move budget also counts this tick's repair and co-location moves
 * as in flight. Deterministic: the same inputs give the same plan.
 */
public final class ControllerPlanner {
  private ControllerPlanner() {}

  public static TickPlan tick(ClusterSnapshot s, ControllerState state, ControllerConfig config, long nowMillis) {
    RepairPlan repair = RepairPolicy.plan(s, config, nowMillis);
    Set<Long> busy = new HashSet<>();
    repair.moves().forEach(m -> busy.add(m.rangeId()));
    repair.removals().forEach(r -> busy.add(r.rangeId()));

    List<SplitDecision> splits = new ArrayList<>();
    Map<Long, LoadSplitState> nextLoad = new HashMap<>();
    for (RangeStats r : s.ranges()) {
      LoadSplitState prior = state.loadSplits()
          .getOrDefault(r.rangeId(), LoadSplitState.initial(r.rangeId(), r.range().generation()));
      SplitOutcome o = SplitPolicy.evaluate(r, prior, config);
      splits.add(o.decision());
      nextLoad.put(r.rangeId(), o.next());
      if (o.decision() instanceof SplitDecision.Split || o.decision() instanceof SplitDecision.NeedsMidpoint) {
        busy.add(r.rangeId());
      }
    }

    List<MergeDecision> merges = MergePolicy.evaluate(s, config, nowMillis, busy);
    List<Move> planned = new ArrayList<>(s.movesInFlight());
    planned.addAll(repair.moves());
    for (MergeDecision m : merges) {
      if (!(m instanceof MergeDecision.Declined)) {
        busy.add(m.leftRangeId());
        busy.add(m.rightRangeId());
      }
      if (m instanceof MergeDecision.CoLocateFirst c) {
        planned.addAll(c.moves());
      }
    }
    RebalancePlan rebalance = RebalancePolicy.plan(s.withMovesInFlight(planned), config, nowMillis, busy);

    List<HotspotAlert> alerts = new ArrayList<>();
    MonotonicOutcome mono = MonotonicKeyDetector.observe(s, state.monotonic(), config);
    mono.alert().ifPresent(alerts::add);
    alerts.addAll(HotKeyDetector.detect(s.ranges(), config));
    return new TickPlan(repair, splits, merges, rebalance, alerts, new ControllerState(nextLoad, mono.next()));
  }
}
