package dev.rangekv.core.controller;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.hotspot.HotKeyDetector;
import dev.rangekv.core.hotspot.HotspotAlert;
import dev.rangekv.core.hotspot.MonotonicKeyDetector;
import dev.rangekv.core.hotspot.MonotonicOutcome;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.merge.MergePolicy;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.placement.PlacementPolicy;
import dev.rangekv.core.rebalance.LeaderHistory;
import dev.rangekv.core.rebalance.RebalancePlan;
import dev.rangekv.core.rebalance.RebalancePolicy;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.rebalance.RepairPolicy;
import dev.rangekv.core.rebalance.SmoothedLoad;
import dev.rangekv.core.split.LoadSplitState;
import dev.rangekv.core.split.SplitDecision;
import dev.rangekv.core.split.SplitOutcome;
import dev.rangekv.core.split.SplitPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One controller tick as a pure function: {@code tick(snapshot, state, config, now)}.
 *
 * <p>Order and exclusions, so decisions of one tick never collide: repair moves first; then placement
 * (rule-boundary splits replace the split policy's decision for their range; placement moves share the
 * move budget); a range being repaired, placed or split this tick takes part in no merge, and no merge
 * joins ranges under different rules or across a rule boundary; ranges being split, merged or co-located are left
 * alone by the rebalancer, whose move budget also counts this tick's repair and co-location moves
 * as in flight. The rebalancer sees each range's smoothed rates ({@link SmoothedLoad}) and its recent
 * leaders ({@link LeaderHistory}), both carried in the state. Deterministic: the same inputs give the
 * same plan.
 */
public final class ControllerPlanner {
  private ControllerPlanner() {}

  /**
   * The tick's decisions and, from them, its operators ({@link OperatorPlanner}), leaving the ranges in
   * {@code in.locked()} alone. First the running operators that cannot finish (a step aimed at a dead
   * node, {@link OperatorPlanner#preemption}) are preempted: their ranges are planned this tick as if
   * they were free and their moves were not in flight, so a repair does not wait for them.
   */
  public static TickPlan tick(ClusterSnapshot s, ControllerState state, ControllerConfig config, long nowMillis,
      OperatorInputs in) {
    Set<String> live = new HashSet<>(s.liveNodeIds(nowMillis, config.deadNodeTimeoutMillis()));
    List<TickPlan.Preemption> preemptions = new ArrayList<>();
    Set<Long> freed = new HashSet<>();
    for (OperatorInputs.Running r : in.running()) {
      Optional<String> why = OperatorPlanner.preemption(r.op(), r.step(), live);
      if (why.isPresent()) {
        preemptions.add(new TickPlan.Preemption(r.op().rangeId(), why.get()));
        freed.addAll(r.op().rangeIds());
      }
    }
    ClusterSnapshot planned = freed.isEmpty() ? s : s.withMovesInFlight(s.movesInFlight().stream()
        .filter(m -> !freed.contains(m.rangeId())).toList());
    TickPlan plan = tick(planned, state, config, nowMillis);
    return plan.withOperators(OperatorPlanner.plan(plan, planned, in.free(freed), config, nowMillis), preemptions);
  }

  /** The tick's decisions, without operators. */
  public static TickPlan tick(ClusterSnapshot s, ControllerState state, ControllerConfig config, long nowMillis) {
    RepairPlan repair = RepairPolicy.plan(s, config, nowMillis);
    Set<Long> busy = new HashSet<>();
    repair.moves().forEach(m -> busy.add(m.rangeId()));
    repair.removals().forEach(r -> busy.add(r.rangeId()));
    int freeMoves = config.maxMovesInFlight() - s.movesInFlight().size() - repair.moves().size();
    PlacementPlan placement = PlacementPolicy.plan(s, config, nowMillis, busy, freeMoves);
    Map<Long, SplitDecision.Split> ruleSplits = new HashMap<>();
    placement.splits().forEach(x -> ruleSplits.put(x.rangeId(), x));
    placement.moves().forEach(m -> busy.add(m.rangeId()));
    placement.leaderTransfers().forEach(t -> busy.add(t.rangeId()));

    List<SplitDecision> splits = new ArrayList<>();
    Map<Long, LoadSplitState> nextLoad = new HashMap<>();
    for (RangeStats r : s.ranges()) {
      LoadSplitState prior = state.loadSplits()
          .getOrDefault(r.rangeId(), LoadSplitState.initial(r.rangeId(), r.range().generation()));
      SplitOutcome o = SplitPolicy.evaluate(r, prior, config);
      SplitDecision decision = ruleSplits.containsKey(r.rangeId()) ? ruleSplits.get(r.rangeId()) : o.decision();
      splits.add(decision);
      nextLoad.put(r.rangeId(), o.next());
      if (decision instanceof SplitDecision.Split || decision instanceof SplitDecision.NeedsMidpoint) {
        busy.add(r.rangeId());
      }
    }

    List<MergeDecision> merges = keepRules(s, MergePolicy.evaluate(s, config, nowMillis, busy));
    List<Move> planned = new ArrayList<>(s.movesInFlight());
    planned.addAll(repair.moves());
    planned.addAll(placement.moves());
    for (MergeDecision m : merges) {
      if (!(m instanceof MergeDecision.Declined)) {
        busy.add(m.leftRangeId());
        busy.add(m.rightRangeId());
      }
      if (m instanceof MergeDecision.CoLocateFirst c) {
        planned.addAll(c.moves());
      }
    }
    LeaderHistory leaders = state.leaders().observe(s.ranges(), nowMillis);
    SmoothedLoad load = state.load().observe(s.ranges(), nowMillis);
    RebalancePlan rebalance = RebalancePolicy.plan(s.withRanges(load.apply(s.ranges())).withMovesInFlight(planned),
        config, nowMillis, busy, leaders);

    List<HotspotAlert> alerts = new ArrayList<>();
    MonotonicOutcome mono = MonotonicKeyDetector.observe(s, state.monotonic(), config);
    mono.alert().ifPresent(alerts::add);
    alerts.addAll(HotKeyDetector.detect(s.ranges(), config));
    return new TickPlan(repair, splits, merges, rebalance, alerts, new ControllerState(nextLoad, mono.next(),
        leaders.planned(rebalance.leaderTransfers(), nowMillis), load),
        placement);
  }

  /**
   * Declines merges that would join spans under different rules (or across a rule boundary), and
   * co-locations whose moves would put a replica where the rule forbids it.
   */
  private static List<MergeDecision> keepRules(ClusterSnapshot s, List<MergeDecision> merges) {
    if (s.rules().isEmpty()) {
      return merges;
    }
    List<MergeDecision> out = new ArrayList<>();
    for (MergeDecision m : merges) {
      if (m instanceof MergeDecision.Declined) {
        out.add(m);
        continue;
      }
      RangeStats left = s.range(m.leftRangeId()).orElseThrow();
      RangeStats right = s.range(m.rightRangeId()).orElseThrow();
      Optional<PlacementRule> rule = s.rules().ruleFor(left.range());
      if (!rule.equals(s.rules().ruleFor(right.range())) || s.rules().isBoundary(right.range().start())) {
        out.add(new MergeDecision.Declined(m.leftRangeId(), m.rightRangeId(), Explanation.of(
            "a placement rule boundary lies between the ranges: they follow different rules").build()));
      } else if (m instanceof MergeDecision.CoLocateFirst c && rule.isPresent() && c.moves().stream()
          .anyMatch(mv -> s.node(mv.toNode()).map(n -> !rule.get().allows(n)).orElse(true))) {
        out.add(new MergeDecision.Declined(m.leftRangeId(), m.rightRangeId(), Explanation.of(
            "co-location would put a replica where the placement rule forbids it: placement fixes the ranges first")
            .build()));
      } else {
        out.add(m);
      }
    }
    return out;
  }
}
