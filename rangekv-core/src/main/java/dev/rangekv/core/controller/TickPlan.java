package dev.rangekv.core.controller;

import dev.rangekv.core.hotspot.HotspotAlert;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.rebalance.RebalancePlan;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.split.SplitDecision;
import java.util.List;
import java.util.Objects;

/**
 * One tick's decisions, in the order the controller should act on them: repair first (lost replicas
 * put data at risk), then splits, merges, and last rebalancing.
 *
 * @param repair re-creation of replicas lost on dead nodes
 * @param splits one decision per range (split, midpoint wanted, declined or no split), in key order
 * @param merges decisions for neighbouring pairs both under min-bytes
 * @param rebalance moves and leadership transfers within the remaining budget
 * @param alerts hotspot alerts raised this tick
 * @param next the state to pass to the next tick
 */
public record TickPlan(
    RepairPlan repair,
    List<SplitDecision> splits,
    List<MergeDecision> merges,
    RebalancePlan rebalance,
    List<HotspotAlert> alerts,
    ControllerState next) {

  public TickPlan {
    Objects.requireNonNull(repair, "repair");
    splits = List.copyOf(splits);
    merges = List.copyOf(merges);
    Objects.requireNonNull(rebalance, "rebalance");
    alerts = List.copyOf(alerts);
    Objects.requireNonNull(next, "next");
  }
}
