package dev.rangekv.core.controller;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.split.SplitDecision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns one tick's decisions into operators, in priority order, at most one per range. Pure.
 *
 * <p>Order: repair moves, then repair removals (data at risk first; repair has its own budget,
 * {@code repair.max-moves}, enforced by the repair policy), placement moves and leadership transfers,
 * splits, merges (or the first co-location move of one), rebalancing moves and transfers. A range held
 * by a running operator or backing off after a failed one ({@link OperatorInputs#locked}) gets none;
 * a range taken by an earlier operator of the same tick gets no later one; a merge needs both ranges
 * free. Unmeasured ranges get no split (unless at a rule boundary), merge or rebalancing operator.
 * Whoever executes the result does not re-decide: it only advances steps.
 */
public final class OperatorPlanner {
  private OperatorPlanner() {}

  public static List<Operator> plan(TickPlan plan, ClusterSnapshot s, OperatorInputs in, ControllerConfig config,
      long nowMillis) {
    Set<String> live = new HashSet<>(s.liveNodeIds(nowMillis, config.deadNodeTimeoutMillis()));
    Builder b = new Builder(s, in, live, nowMillis);
    plan.repair().moves().forEach(m -> b.move(m, OperatorKind.REPAIR));
    for (RepairPlan.Removal r : plan.repair().removals()) {
      b.add(r.rangeId(), OperatorKind.REPAIR, List.of(new OpStep.RemoveReplica(r.nodeId())), r.why());
    }
    plan.placement().moves().forEach(m -> b.move(m, OperatorKind.PLACEMENT));
    plan.placement().leaderTransfers().forEach(t -> b.transfer(t, OperatorKind.PLACEMENT_LEADER));
    for (SplitDecision d : plan.splits()) {
      boolean ruleBoundary = d instanceof SplitDecision.Split x && x.cause() == SplitCause.PLACEMENT;
      if ((ruleBoundary || !in.unmeasured().contains(d.rangeId()))) {
        b.split(d);
      }
    }
    for (MergeDecision d : plan.merges()) {
      if (in.unmeasured().contains(d.leftRangeId()) || in.unmeasured().contains(d.rightRangeId())) {
        continue;
      }
      if (d instanceof MergeDecision.Merge m) {
        b.merge(m);
      } else if (d instanceof MergeDecision.CoLocateFirst c && !c.moves().isEmpty()) {
        b.move(c.moves().get(0), OperatorKind.COLOCATE);
      }
    }
    for (Move m : plan.rebalance().moves()) {
      if (!in.unmeasured().contains(m.rangeId())) {
        b.move(m, OperatorKind.REBALANCE);
      }
    }
    for (LeaderTransfer t : plan.rebalance().leaderTransfers()) {
      if (!in.unmeasured().contains(t.rangeId())) {
        b.transfer(t, OperatorKind.REBALANCE_LEADER);
      }
    }
    return b.out;
  }

  /**
   * The steps of one replica move of {@code range}. A move off a replica of a range with at least 3
   * replicas swaps it for the new one in one Raft configuration change ({@link OpStep.ReplaceReplica}:
   * joint consensus, the voter count never grows, so losing a zone mid-move cannot cost the majority),
   * after moving the leadership off a live source (to another live old replica: it is caught up; the
   * step finishes at once when the source does not lead). A dead source takes part in no transfer.
   * Where a replace cannot be one joint change (2 replicas: one new voter of two is a majority change;
   * 1: the only voter would remove itself), or for a pure addition, the move adds on the target and then,
   * from a live source, moves leadership off it and removes it.
   */
  public static List<OpStep> moveSteps(Move m, RangeDescriptor range, Set<String> liveNodes) {
    List<OpStep> steps = new ArrayList<>();
    if (m.fromNode().isEmpty()) {
      return List.of(new OpStep.AddReplica(m.toNode()));
    }
    String from = m.fromNode().get();
    boolean live = liveNodes.contains(from);
    if (range.replicas().size() >= 3 && range.replicas().contains(from) && !range.replicas().contains(m.toNode())) {
      if (live) {
        String heir = range.replicas().stream().filter(n -> !n.equals(from) && liveNodes.contains(n)).findFirst()
            .orElseGet(() -> range.replicas().stream().filter(n -> !n.equals(from)).findFirst().orElseThrow());
        steps.add(new OpStep.TransferLeaderAway(from, heir));
      }
      steps.add(new OpStep.ReplaceReplica(from, m.toNode()));
      return steps;
    }
    steps.add(new OpStep.AddReplica(m.toNode()));
    if (live) {
      String heir = range.replicas().stream().filter(n -> !n.equals(from) && !n.equals(m.toNode())
          && liveNodes.contains(n)).findFirst().orElse(m.toNode());
      steps.add(new OpStep.TransferLeaderAway(from, heir));
    }
    steps.add(new OpStep.RemoveReplica(from));
    return steps;
  }

  /**
   * Why a running operator must give its range back, if it must: one of its unfinished steps (from index
   * {@code step}) adds a replica on, or moves leadership to, a node that is not live. Such a step cannot
   * finish, and a repair of the range would wait for it until the operator's deadline (repairs come
   * first; PD's operator checker cancels these too).
   */
  public static Optional<String> preemption(Operator op, int step, Set<String> liveNodes) {
    for (OpStep s : op.steps().subList(Math.min(step, op.steps().size()), op.steps().size())) {
      Optional<String> target = s instanceof OpStep.AddReplica a ? Optional.of(a.nodeId())
          : s instanceof OpStep.ReplaceReplica r ? Optional.of(r.toNode())
          : s instanceof OpStep.TransferLeader t ? Optional.of(t.toNode())
          : s instanceof OpStep.TransferLeaderAway t ? Optional.of(t.heir())
          : Optional.empty();
      if (target.isPresent() && !liveNodes.contains(target.get())) {
        return Optional.of("node " + target.get() + " is dead: " + s.describe() + " cannot finish");
      }
    }
    return Optional.empty();
  }

  /** Accumulates operators, at most one per range, skipping locked ranges. */
  private static final class Builder {
    final ClusterSnapshot s;
    final OperatorInputs in;
    final Set<String> live;
    final long now;
    final Set<Long> taken = new HashSet<>();
    final List<Operator> out = new ArrayList<>();
    /**
     * The snapshot's ranges by id: the plan holds a split decision for every range, and looking each up
     * in the snapshot's list made a tick quadratic in the range count (two thirds of the controller's CPU
     * at 10,000 ranges; BENCHMARKS.md, "Idle work proportional to change").
     */
    final Map<Long, RangeStats> byId = new HashMap<>();

    Builder(ClusterSnapshot s, OperatorInputs in, Set<String> live, long now) {
      this.s = s;
      this.in = in;
      this.live = live;
      this.now = now;
      s.ranges().forEach(r -> byId.put(r.rangeId(), r));
    }

    Optional<RangeStats> range(long rangeId) {
      return Optional.ofNullable(byId.get(rangeId));
    }

    boolean free(long rangeId) {
      return !taken.contains(rangeId) && !in.locked().contains(rangeId);
    }

    void add(long rangeId, OperatorKind kind, List<OpStep> steps, Explanation why) {
      Optional<RangeStats> r = range(rangeId);
      if (r.isEmpty() || !free(rangeId)) {
        return;
      }
      Operator op = new Operator(rangeId, r.get().range().generation(), kind, steps, why,
          in.timeouts().deadline(steps, now));
      taken.addAll(op.rangeIds());
      out.add(op);
    }

    void move(Move m, OperatorKind kind) {
      range(m.rangeId()).ifPresent(r -> add(m.rangeId(), kind, moveSteps(m, r.range(), live), m.why()));
    }

    void transfer(LeaderTransfer t, OperatorKind kind) {
      add(t.rangeId(), kind, List.of(new OpStep.TransferLeader(t.fromNode(), t.toNode())), t.why());
    }

    void split(SplitDecision d) {
      Optional<RangeStats> r = range(d.rangeId());
      if (r.isEmpty()) {
        return;
      }
      RangeDescriptor range = r.get().range();
      if (d instanceof SplitDecision.Split x) {
        add(d.rangeId(), OperatorKind.SPLIT, List.of(new OpStep.SplitAt(Optional.of(x.splitKey()), range.end(),
            range.generation(), x.cause())), d.why());
      } else if (d instanceof SplitDecision.NeedsMidpoint) {
        add(d.rangeId(), OperatorKind.SPLIT, List.of(new OpStep.SplitAt(Optional.empty(), range.end(),
            range.generation(), SplitCause.SIZE)), d.why());
      }
    }

    void merge(MergeDecision.Merge m) {
      Optional<RangeStats> right = range(m.rightRangeId());
      if (right.isEmpty() || !free(m.rightRangeId())) {
        return;
      }
      add(m.leftRangeId(), OperatorKind.MERGE, List.of(new OpStep.Merge(m.rightRangeId(), m.rightGeneration(),
          right.get().range().end())), m.why());
    }
  }
}
