package dev.rangekv.core.controller;

import dev.rangekv.core.hotspot.HotspotAlert;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.rebalance.RebalancePlan;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.split.SplitDecision;
import java.util.List;
import java.util.Objects;

/**
 * One tick's decisions, in the order the controller should act on them: repair first (lost replicas
 * put data at risk), then placement moves, splits, merges, and last rebalancing.
 *
 * @param repair re-creation of replicas lost on dead nodes
 * @param splits one decision per range (split, midpoint wanted, declined or no split), in key order
 * @param merges decisions for neighbouring pairs both under min-bytes
 * @param rebalance moves and leadership transfers within the remaining budget
 * @param alerts hotspot alerts raised this tick
 * @param next the state to pass to the next tick
 * @param placement placement-rule moves and transfers (their rule-boundary splits are among {@code splits})
 *     and where each ruled range stands
 * @param operators the decisions above as operators, in priority order, at most one per range: the
 *     controller executes these and nothing else
 * @param preemptions running operators to cancel before {@code operators} start (without backing off:
 *     the ranges they free may already have an operator of this tick, a repair say)
 */
public record TickPlan(
    RepairPlan repair,
    List<SplitDecision> splits,
    List<MergeDecision> merges,
    RebalancePlan rebalance,
    List<HotspotAlert> alerts,
    ControllerState next,
    PlacementPlan placement,
    List<Operator> operators,
    List<Preemption> preemptions) {

  /** A running operator on {@code rangeId} to cancel, and why. */
  public record Preemption(long rangeId, String reason) {
    public Preemption {
      Objects.requireNonNull(reason, "reason");
    }
  }

  public TickPlan {
    Objects.requireNonNull(repair, "repair");
    splits = List.copyOf(splits);
    merges = List.copyOf(merges);
    Objects.requireNonNull(rebalance, "rebalance");
    alerts = List.copyOf(alerts);
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(placement, "placement");
    operators = List.copyOf(operators);
    preemptions = List.copyOf(preemptions);
  }

  /** A plan that preempts nothing. */
  public TickPlan(RepairPlan repair, List<SplitDecision> splits, List<MergeDecision> merges, RebalancePlan rebalance,
      List<HotspotAlert> alerts, ControllerState next, PlacementPlan placement, List<Operator> operators) {
    this(repair, splits, merges, rebalance, alerts, next, placement, operators, List.of());
  }

  /** A plan whose operators are not derived yet. */
  public TickPlan(RepairPlan repair, List<SplitDecision> splits, List<MergeDecision> merges, RebalancePlan rebalance,
      List<HotspotAlert> alerts, ControllerState next, PlacementPlan placement) {
    this(repair, splits, merges, rebalance, alerts, next, placement, List.of());
  }

  /** This plan with {@code ops} as its operators. */
  public TickPlan withOperators(List<Operator> ops) {
    return new TickPlan(repair, splits, merges, rebalance, alerts, next, placement, ops, preemptions);
  }

  /** This plan with {@code ops} as its operators and {@code cancel} as its preemptions. */
  public TickPlan withOperators(List<Operator> ops, List<Preemption> cancel) {
    return new TickPlan(repair, splits, merges, rebalance, alerts, next, placement, ops, cancel);
  }

  /** A plan without placement rules. */
  public TickPlan(RepairPlan repair, List<SplitDecision> splits, List<MergeDecision> merges, RebalancePlan rebalance,
      List<HotspotAlert> alerts, ControllerState next) {
    this(repair, splits, merges, rebalance, alerts, next, PlacementPlan.EMPTY);
  }
}
