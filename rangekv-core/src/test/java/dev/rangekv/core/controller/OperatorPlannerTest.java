package dev.rangekv.core.controller;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rebalance.RebalancePlan;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.split.SplitDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OperatorPlannerTest {
  static final long NOW = 5_000_000;
  static final ControllerConfig CONFIG = ControllerConfig.defaults();
  static final Explanation WHY = Explanation.of("test").build();

  /** r1..r4 on n1,n2,n3 led by n1; n4 live and empty; n5 dead. */
  static ClusterSnapshot snapshot() {
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, "n1", "n2", "n3", "n4"));
    ns.add(NodeStats.of("n5", 0));
    List<RangeStats> rs = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      rs.add(RangeStats.of(range(i, (i - 1) * 100L, i == 4 ? -1 : i * 100L, "n1", "n2", "n3"), 10, 0, "n1"));
    }
    return ClusterSnapshot.of(ns, rs);
  }

  static TickPlan plan(RepairPlan repair, List<SplitDecision> splits, List<MergeDecision> merges,
      RebalancePlan rebalance) {
    return new TickPlan(repair, splits, merges, rebalance, List.of(), ControllerState.INITIAL, PlacementPlan.EMPTY);
  }

  static List<Operator> ops(TickPlan p, Set<Long> locked, Set<Long> unmeasured) {
    return OperatorPlanner.plan(p, snapshot(), new OperatorInputs(locked, unmeasured, StepTimeouts.DEFAULTS), CONFIG,
        NOW);
  }

  static final RepairPlan NO_REPAIR = new RepairPlan(List.of(), List.of(), WHY);
  static final RebalancePlan NO_REBALANCE = new RebalancePlan(List.of(), List.of(), WHY);

  @Test
  void repairComesFirst_andTakesTheRangeFromALaterRebalance() {
    TickPlan p = plan(NO_REPAIR, List.of(), List.of(), new RebalancePlan(List.of(Move.of(1, "n2", "n4", WHY)),
        List.of(new LeaderTransfer(2, "n1", "n2", WHY)), WHY));
    p = plan(new RepairPlan(List.of(Move.of(1, "n5", "n4", WHY)), List.of(), WHY), List.of(), List.of(),
        p.rebalance());
    List<Operator> ops = ops(p, Set.of(), Set.of());
    assertThat(ops).extracting(Operator::kind).containsExactly(OperatorKind.REPAIR, OperatorKind.REBALANCE_LEADER);
    assertThat(ops.get(0).steps()).as("n5 holds no replica of r1 here: add, then drop whatever n5 had")
        .containsExactly(new OpStep.AddReplica("n4"), new OpStep.RemoveReplica("n5"));
    assertThat(ops.get(0).expectedGeneration()).isEqualTo(snapshot().range(1).orElseThrow().range().generation());
  }

  @Test
  void moveOffALiveReplicaOfThree_movesLeadershipOffIt_thenReplacesItInOneStep() {
    TickPlan p = plan(NO_REPAIR, List.of(), List.of(), new RebalancePlan(List.of(Move.of(3, "n1", "n4", WHY)),
        List.of(), WHY));
    assertThat(ops(p, Set.of(), Set.of()).get(0).steps()).as("never 4 voters: one joint-consensus change")
        .containsExactly(new OpStep.TransferLeaderAway("n1", "n2"), new OpStep.ReplaceReplica("n1", "n4"));
  }

  @Test
  void moveOffADeadReplicaOfThree_replacesItWithoutATransfer() {
    RangeDescriptor r = range(1, 0, 100, "n1", "n2", "n5");
    assertThat(OperatorPlanner.moveSteps(Move.of(1, "n5", "n4", WHY), r, Set.of("n1", "n2", "n3", "n4")))
        .containsExactly(new OpStep.ReplaceReplica("n5", "n4"));
  }

  @Test
  void theHeirOfAReplace_isALiveRemainingReplica() {
    RangeDescriptor r = range(1, 0, 100, "n1", "n2", "n3");
    assertThat(OperatorPlanner.moveSteps(Move.of(1, "n1", "n4", WHY), r, Set.of("n1", "n3", "n4")))
        .containsExactly(new OpStep.TransferLeaderAway("n1", "n3"), new OpStep.ReplaceReplica("n1", "n4"));
  }

  @Test
  void rangesOfOneOrTwoReplicas_addThenRemove_asRatisCannotReplaceThoseInOneChange() {
    RangeDescriptor one = range(1, 0, 100, "n1");
    assertThat(OperatorPlanner.moveSteps(Move.of(1, "n1", "n4", WHY), one, Set.of("n1", "n4")))
        .containsExactly(new OpStep.AddReplica("n4"), new OpStep.TransferLeaderAway("n1", "n4"),
            new OpStep.RemoveReplica("n1"));
    RangeDescriptor two = range(1, 0, 100, "n1", "n2");
    assertThat(OperatorPlanner.moveSteps(Move.of(1, "n1", "n4", WHY), two, Set.of("n1", "n2", "n4")))
        .containsExactly(new OpStep.AddReplica("n4"), new OpStep.TransferLeaderAway("n1", "n2"),
            new OpStep.RemoveReplica("n1"));
    assertThat(OperatorPlanner.moveSteps(Move.add(1, "n4", WHY), two, Set.of("n1", "n2", "n4")))
        .containsExactly(new OpStep.AddReplica("n4"));
  }

  @Test
  void aReplaceOntoADeadNode_isPreempted() {
    Operator move = new Operator(1, 1, OperatorKind.REBALANCE, List.of(new OpStep.TransferLeaderAway("n1", "n2"),
        new OpStep.ReplaceReplica("n1", "n4")), WHY, NOW + 1000);
    assertThat(OperatorPlanner.preemption(move, 1, Set.of("n1", "n2", "n3")))
        .contains("node n4 is dead: replace replica on n1 with n4 cannot finish");
    assertThat(OperatorPlanner.preemption(move, 0, Set.of("n1", "n2", "n3", "n4"))).isEmpty();
  }

  @Test
  void lockedRanges_getNoOperator_andAMergeNeedsBothRangesFree() {
    TickPlan p = plan(NO_REPAIR, List.of(new SplitDecision.Split(1, 1, k(50), SplitCause.LOAD, WHY)),
        List.of(new MergeDecision.Merge(2, 1, 3, 1, WHY)), NO_REBALANCE);
    assertThat(ops(p, Set.of(1L, 3L), Set.of())).isEmpty();
    List<Operator> free = ops(p, Set.of(), Set.of());
    assertThat(free).extracting(Operator::kind).containsExactly(OperatorKind.SPLIT, OperatorKind.MERGE);
    assertThat(free.get(1).rangeIds()).containsExactly(2L, 3L);
  }

  @Test
  void unmeasuredRanges_getNoLoadDrivenOperator_butRuleBoundarySplitsStillGo() {
    TickPlan p = plan(NO_REPAIR, List.of(new SplitDecision.Split(1, 1, k(50), SplitCause.SIZE, WHY),
            new SplitDecision.Split(2, 1, k(150), SplitCause.PLACEMENT, WHY)),
        List.of(new MergeDecision.Merge(3, 1, 4, 1, WHY)), NO_REBALANCE);
    List<Operator> ops = ops(p, Set.of(), Set.of(1L, 2L, 4L));
    assertThat(ops).extracting(Operator::rangeId).containsExactly(2L);
  }

  @Test
  void deadline_coversEveryAttemptOfEveryStep() {
    TickPlan p = plan(NO_REPAIR, List.of(), List.of(), new RebalancePlan(List.of(), List.of(
        new LeaderTransfer(2, "n1", "n2", WHY)), WHY));
    StepTimeouts t = StepTimeouts.DEFAULTS;
    assertThat(ops(p, Set.of(), Set.of()).get(0).deadlineMillis()).isEqualTo(NOW + t.fastMillis() * t.attempts());
  }

  @Test
  void theFullPlanner_returnsOperatorsForItsDecisions() {
    ClusterSnapshot s = snapshot();
    TickPlan p = ControllerPlanner.tick(s, ControllerState.INITIAL, CONFIG, NOW, OperatorInputs.NONE);
    // n5 is dead but holds nothing; the four small ranges on n1..n3 merge pairwise: (1,2) and (3,4)
    assertThat(p.operators()).extracting(Operator::kind).contains(OperatorKind.MERGE);
    assertThat(p.operators()).allSatisfy(o -> assertThat(o.deadlineMillis()).isGreaterThan(NOW));
  }
  @Test
  void aRunningOperatorWhoseRemainingStepsAimAtADeadNode_isPreempted_andOneWhoseDoneStepsDid_isNot() {
    Operator move = new Operator(1, 1, OperatorKind.REBALANCE, List.of(new OpStep.AddReplica("n4"),
        new OpStep.TransferLeaderAway("n1", "n2"), new OpStep.RemoveReplica("n1")), WHY, NOW + 1000);
    Set<String> allLive = Set.of("n1", "n2", "n3", "n4");

    assertThat(OperatorPlanner.preemption(move, 0, allLive)).isEmpty();
    assertThat(OperatorPlanner.preemption(move, 0, Set.of("n1", "n2", "n3")))
        .contains("node n4 is dead: add replica on n4 cannot finish");
    assertThat(OperatorPlanner.preemption(move, 1, Set.of("n1", "n2", "n3"))).as("n4 already added").isEmpty();
    assertThat(OperatorPlanner.preemption(move, 1, Set.of("n1", "n3", "n4")))
        .contains("node n2 is dead: transfer leader off n1 cannot finish");
    assertThat(OperatorPlanner.preemption(move, 2, Set.of("n1", "n3", "n4"))).as("removals need no target").isEmpty();

    Operator transfer = new Operator(1, 1, OperatorKind.REBALANCE_LEADER,
        List.of(new OpStep.TransferLeader("n1", "n4")), WHY, NOW + 1000);
    assertThat(OperatorPlanner.preemption(transfer, 0, Set.of("n1", "n2", "n3")))
        .contains("node n4 is dead: transfer leader n1 -> n4 cannot finish");
    assertThat(OperatorPlanner.preemption(transfer, 0, allLive)).isEmpty();
  }
  @Test
  void theFullPlanner_preemptsAMoveOntoADeadNode_andRepairsItsRangeInTheSameTick() {
    // r1 lost its replica on n6 (dead) while a move of it onto n5 (dead too) was running
    List<NodeStats> ns = new ArrayList<>(nodes(NOW, "n1", "n2", "n3", "n4"));
    ns.add(NodeStats.of("n5", 0));
    ns.add(NodeStats.of("n6", 0));
    ClusterSnapshot s = ClusterSnapshot.of(ns, List.of(RangeStats.of(range(1, 0, -1, "n1", "n2", "n6"), 10, 0, "n1")))
        .withMovesInFlight(List.of(Move.of(1, "n1", "n5", WHY)));
    Operator move = new Operator(1, 1, OperatorKind.REBALANCE, List.of(new OpStep.AddReplica("n5"),
        new OpStep.TransferLeaderAway("n1", "n2"), new OpStep.RemoveReplica("n1")), WHY, NOW + 60_000);

    TickPlan waiting = ControllerPlanner.tick(s, ControllerState.INITIAL, CONFIG, NOW,
        new OperatorInputs(Set.of(1L), Set.of(), StepTimeouts.DEFAULTS));
    assertThat(waiting.operators()).as("without the running operator's steps, r1 waits for it").isEmpty();
    assertThat(waiting.preemptions()).isEmpty();

    TickPlan p = ControllerPlanner.tick(s, ControllerState.INITIAL, CONFIG, NOW,
        new OperatorInputs(Set.of(1L), Set.of(), StepTimeouts.DEFAULTS, List.of(new OperatorInputs.Running(move, 0))));
    assertThat(p.preemptions()).containsExactly(
        new TickPlan.Preemption(1, "node n5 is dead: add replica on n5 cannot finish"));
    assertThat(p.operators()).extracting(Operator::rangeId, Operator::kind)
        .containsExactly(org.assertj.core.api.Assertions.tuple(1L, OperatorKind.REPAIR));
    List<OpStep> steps = p.operators().get(0).steps();
    assertThat(steps).as("the dead replica is swapped out in one change, without a transfer").singleElement()
        .isIn(new OpStep.ReplaceReplica("n6", "n3"), new OpStep.ReplaceReplica("n6", "n4"));
  }

  @Test
  void theFullPlanner_leavesARunningOperatorThatCanFinish() {
    ClusterSnapshot s = snapshot();
    Operator transfer = new Operator(2, 1, OperatorKind.REBALANCE_LEADER,
        List.of(new OpStep.TransferLeader("n1", "n4")), WHY, NOW + 60_000);
    TickPlan p = ControllerPlanner.tick(s, ControllerState.INITIAL, CONFIG, NOW, new OperatorInputs(Set.of(2L),
        Set.of(), StepTimeouts.DEFAULTS, List.of(new OperatorInputs.Running(transfer, 0))));
    assertThat(p.preemptions()).isEmpty();
    assertThat(p.operators()).noneMatch(o -> o.rangeIds().contains(2L));
  }
}
