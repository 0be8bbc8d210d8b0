package dev.rangekv.core.operator;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OperatorTest {
  static final Explanation WHY = Explanation.of("test").build();

  static Operator move(RangeDescriptor r) {
    return new Operator(r.rangeId(), r.generation(), OperatorKind.REBALANCE, List.of(new OpStep.AddReplica("n4"),
        new OpStep.TransferLeaderAway("n1", "n2"), new OpStep.RemoveReplica("n1")), WHY, 100);
  }

  @Test
  void moveProgress_followsWhatTheReportsShow_stepByStep() {
    RangeDescriptor r = range(1, 0, 100, "n1", "n2", "n3");
    Operator op = move(r);
    assertThat(op.progress(0, r, "n1")).isZero();
    RangeDescriptor added = r.withReplicas(List.of("n1", "n2", "n3", "n4"), r.generation() + 1);
    assertThat(op.progress(0, added, "n1")).isEqualTo(1);
    assertThat(op.progress(0, added, "")).as("an unknown leader is not off n1").isEqualTo(1);
    assertThat(op.progress(1, added, "n3")).isEqualTo(2);
    RangeDescriptor removed = added.withReplicas(List.of("n2", "n3", "n4"), added.generation() + 1);
    assertThat(op.progress(2, removed, "n3")).isEqualTo(3);
  }

  @Test
  void stepsAlreadyDone_areSkipped_soARetryNeverRepeatsAChange() {
    RangeDescriptor r = range(1, 0, 100, "n2", "n3", "n4");
    assertThat(move(r).progress(0, r, "n2")).isEqualTo(3);
  }

  @Test
  void splitAtKey_finishesWhenTheRangeEndsThere_midpointWhenItsEndMoved() {
    RangeDescriptor r = range(1, 0, 100, "n1");
    OpStep atKey = new OpStep.SplitAt(Optional.of(k(50)), r.end(), r.generation(), SplitCause.SIZE);
    OpStep mid = new OpStep.SplitAt(Optional.empty(), r.end(), r.generation(), SplitCause.SIZE);
    assertThat(atKey.isFinished(r, "n1")).isFalse();
    assertThat(mid.isFinished(r, "n1")).isFalse();
    RangeDescriptor left = r.withSpan(r.start(), RangeEnd.at(k(50)), r.generation() + 1);
    assertThat(atKey.isFinished(left, "n1")).isTrue();
    assertThat(mid.isFinished(left, "n1")).isTrue();
    RangeDescriptor leftElsewhere = r.withSpan(r.start(), RangeEnd.at(k(40)), r.generation() + 1);
    assertThat(atKey.isFinished(leftElsewhere, "n1")).isFalse();
  }

  @Test
  void merge_finishesWhenTheLeftReachesTheRightsEnd_andHoldsBothRanges() {
    RangeDescriptor left = range(1, 0, 100, "n1");
    Operator op = new Operator(1, left.generation(), OperatorKind.MERGE,
        List.of(new OpStep.Merge(2, 7, RangeEnd.at(k(200)))), WHY, 100);
    assertThat(op.rangeIds()).containsExactly(1L, 2L);
    assertThat(op.progress(0, left, "n1")).isZero();
    assertThat(op.progress(0, left.withSpan(left.start(), RangeEnd.at(k(200)), 9), "n1")).isEqualTo(1);
  }

  @Test
  void transferLeader_finishesOnlyWhenTheTargetLeads() {
    OpStep t = new OpStep.TransferLeader("n1", "n2");
    RangeDescriptor r = range(1, 0, 100, "n1", "n2", "n3");
    assertThat(t.isFinished(r, "n3")).isFalse();
    assertThat(t.isFinished(r, "n2")).isTrue();
  }

  @Test
  void moveOf_namesTheAddedAndRemovedNodes() {
    Operator op = move(range(1, 0, 100, "n1", "n2", "n3"));
    assertThat(op.move()).hasValueSatisfying(m -> {
      assertThat(m.fromNode()).contains("n1");
      assertThat(m.toNode()).isEqualTo("n4");
    });
  }

  static Operator replace(RangeDescriptor r) {
    return new Operator(r.rangeId(), r.generation(), OperatorKind.REBALANCE, List.of(
        new OpStep.TransferLeaderAway("n1", "n2"), new OpStep.ReplaceReplica("n1", "n4")), WHY, 100);
  }

  @Test
  void replace_finishesWhenTheNewReplicaIsListedAndTheOldOneIsNot_andIsOneMove() {
    RangeDescriptor r = range(1, 0, 100, "n1", "n2", "n3");
    Operator op = replace(r);
    assertThat(op.progress(0, r, "n1")).isZero();
    assertThat(op.progress(0, r, "n3")).as("leadership already off n1").isEqualTo(1);
    RangeDescriptor swapped = r.withReplicas(List.of("n2", "n3", "n4"), r.generation() + 1);
    assertThat(op.progress(1, swapped, "n2")).isEqualTo(2);
    RangeDescriptor both = r.withReplicas(List.of("n1", "n2", "n3", "n4"), r.generation() + 1);
    assertThat(new OpStep.ReplaceReplica("n1", "n4").isFinished(both, "n2")).as("n1 still listed").isFalse();
    assertThat(op.move()).contains(dev.rangekv.core.cluster.Move.of(1, "n1", "n4", WHY));
    assertThat(new OpStep.ReplaceReplica("n1", "n4").slow()).isTrue();
    assertThatThrownBy(() -> new OpStep.ReplaceReplica("n4", "n4")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void resume_goesBackToTheTransfer_whenTheLeadershipCameBackToTheLeavingReplica() {
    RangeDescriptor r = range(1, 0, 100, "n1", "n2", "n3");
    Operator op = replace(r);
    assertThat(op.resume(1, r, "n1")).isZero();
    assertThat(op.resume(1, r, "n2")).isEqualTo(1);
    assertThat(op.resume(1, r, "")).as("an unknown leader sends the replace: the node decides").isEqualTo(1);
    assertThat(op.resume(0, r, "n1")).isZero();
    RangeDescriptor addedThenBack = r.withReplicas(List.of("n1", "n2", "n3", "n4"), r.generation() + 1);
    assertThat(move(r).resume(2, addedThenBack, "n1")).as("a removal of the leader goes back too").isEqualTo(1);
    assertThat(move(r).resume(1, addedThenBack, "n1")).isEqualTo(1);
    Operator deadSource = new Operator(1, r.generation(), OperatorKind.REPAIR,
        List.of(new OpStep.ReplaceReplica("n1", "n4")), WHY, 100);
    assertThat(deadSource.resume(0, r, "n1")).as("no transfer to go back to").isZero();
  }

  @Test
  void operatorWithoutSteps_isRefused() {
    assertThatThrownBy(() -> new Operator(1, 1, OperatorKind.SPLIT, List.of(), WHY, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
