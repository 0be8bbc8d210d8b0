package dev.rangekv.meta.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The operator queue as a script of data: reports in, actions out, time passed in. No cluster, no
 * threads, no clock.
 */
class OperatorQueueTest {
  static final StepTimeouts TIMEOUTS = new StepTimeouts(10, 100, 2);
  static final Explanation WHY = Explanation.of("test").build();

  final OperatorQueue queue = new OperatorQueue(TIMEOUTS, 50);
  final Map<Long, OperatorQueue.Observed> reports = new HashMap<>();

  static RangeDescriptor range(long id, List<String> replicas, long generation) {
    return new RangeDescriptor(id, Key.EMPTY, RangeEnd.INFINITY, replicas, generation);
  }

  void report(RangeDescriptor d, String leader) {
    reports.put(d.rangeId(), new OperatorQueue.Observed(d, leader));
  }

  List<OperatorQueue.Action> at(long now) {
    return queue.advance(now, id -> Optional.ofNullable(reports.get(id)));
  }

  static Operator move(long deadline) {
    return new Operator(1, 1, OperatorKind.REBALANCE, List.of(new OpStep.AddReplica("n4"),
        new OpStep.TransferLeaderAway("n1", "n2"), new OpStep.RemoveReplica("n1")), WHY, deadline);
  }

  @Test
  void eachStepIsSentOnce_andTheNextOneWhenTheReportsShowItDone() {
    RangeDescriptor r = range(1, List.of("n1", "n2", "n3"), 1);
    report(r, "n1");
    queue.admit(move(1000), 0);

    assertThat(at(0)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.step()).isEqualTo(new OpStep.AddReplica("n4")));
    assertThat(at(5)).as("in flight: nothing to do").isEmpty();

    report(r.withReplicas(List.of("n1", "n2", "n3", "n4"), 2), "n1");
    assertThat(at(6)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.step()).isEqualTo(new OpStep.TransferLeaderAway("n1", "n2")));
    report(r.withReplicas(List.of("n1", "n2", "n3", "n4"), 2), "n2");
    assertThat(at(7)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.step()).isEqualTo(new OpStep.RemoveReplica("n1")));
    report(r.withReplicas(List.of("n2", "n3", "n4"), 3), "n2");
    assertThat(at(8)).singleElement().isInstanceOf(OperatorQueue.Finished.class);
    assertThat(queue.locked(8)).isEmpty();
    assertThat(queue.moves()).isEmpty();
  }

  @Test
  void aReplace_followsItsTransfer_andGoesBackToItWhenTheLeadershipReturnsToTheLeavingReplica() {
    RangeDescriptor r = range(1, List.of("n1", "n2", "n3"), 1);
    report(r, "n1");
    long id = queue.admit(new Operator(1, 1, OperatorKind.REBALANCE, List.of(new OpStep.TransferLeaderAway("n1", "n2"),
        new OpStep.ReplaceReplica("n1", "n4")), WHY, 10_000), 0).orElseThrow();
    assertThat(queue.moves()).extracting(m -> m.fromNode().orElseThrow() + "->" + m.toNode()).containsExactly("n1->n4");

    assertThat(at(0)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.step()).isEqualTo(new OpStep.TransferLeaderAway("n1", "n2")));
    report(r, "n2");
    OperatorQueue.Send replace = (OperatorQueue.Send) at(1).get(0);
    assertThat(replace.step()).isEqualTo(new OpStep.ReplaceReplica("n1", "n4"));

    // an election hands the leadership back to n1, which refuses to replace itself (retryable)
    report(r, "n1");
    queue.failed(id, replace.index(), "the leader of range 1 cannot replace its own replica");
    assertThat(at(2)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class, s -> {
      assertThat(s.step()).isEqualTo(new OpStep.TransferLeaderAway("n1", "n2"));
      assertThat(s.attempt()).isZero();
    });
    report(r, "n3");
    assertThat(at(3)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.step()).isEqualTo(new OpStep.ReplaceReplica("n1", "n4")));
    assertThat(at(50)).as("a replace is slow: in flight").isEmpty();
    report(r.withReplicas(List.of("n2", "n3", "n4"), 2), "n3");
    assertThat(at(51)).singleElement().isInstanceOf(OperatorQueue.Finished.class);
  }

  @Test
  void aFailedCall_isRetried_thenTheOperatorIsCancelledWithTheError_andTheRangeBacksOff() {
    report(range(1, List.of("n1", "n2", "n3"), 1), "n1");
    long id = queue.admit(move(1000), 0).orElseThrow();
    OperatorQueue.Send first = (OperatorQueue.Send) at(0).get(0);
    queue.failed(id, first.index(), "disk full");
    OperatorQueue.Send retry = (OperatorQueue.Send) at(1).get(0);
    assertThat(retry.attempt()).isEqualTo(1);
    queue.failed(id, retry.index(), "disk full again");

    assertThat(at(2)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).isEqualTo("disk full again"));
    assertThat(queue.locked(2)).containsExactly(1L);
    assertThat(queue.admit(move(1000), 3)).as("backing off").isEmpty();
    assertThat(queue.locked(52)).isEmpty();
    assertThat(queue.admit(move(1000), 52)).isPresent();
  }

  @Test
  void aCallThatFailsFast_isResentOnlyAfterADoublingDelay_butARedirectAtOnce() {
    OperatorQueue patient = new OperatorQueue(new StepTimeouts(100, 1000, 4), 50);
    report(range(1, List.of("n1", "n2", "n3"), 1), "n1");
    long id = patient.admit(move(100_000), 0).orElseThrow();
    java.util.function.LongFunction<List<OperatorQueue.Action>> at =
        now -> patient.advance(now, r -> Optional.ofNullable(reports.get(r)));
    assertThat(at.apply(0)).hasSize(1);

    patient.failed(id, 0, "io exception"); // the node refused the connection
    assertThat(at.apply(9)).as("a tenth of a fast attempt after the send").isEmpty();
    assertThat(at.apply(10)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.attempt()).isEqualTo(1));
    patient.failed(id, 0, "io exception");
    assertThat(at.apply(29)).as("then twice that").isEmpty();
    assertThat(at.apply(30)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.attempt()).isEqualTo(2));

    patient.failed(id, 0, "not leader", OperatorQueue.Failure.REDIRECTED);
    assertThat(at.apply(31)).as("another leader was named: go there now").singleElement()
        .isInstanceOfSatisfying(OperatorQueue.Send.class, s -> assertThat(s.attempt()).isEqualTo(3));
    patient.failed(id, 0, "io exception");
    assertThat(at.apply(32)).as("out of attempts: no need to wait").singleElement()
        .isInstanceOfSatisfying(OperatorQueue.Cancelled.class, c -> assertThat(c.reason()).isEqualTo("io exception"));
  }

  @Test
  void aStepThatNeverFinishes_isResentAfterItsTimeout_andCancelledAfterItsAttempts() {
    report(range(1, List.of("n1", "n2", "n3"), 1), "n1");
    queue.admit(move(10_000), 0);
    assertThat(at(0)).hasSize(1);
    assertThat(at(99)).as("an added replica is a slow step: 100 per attempt").isEmpty();
    assertThat(at(100)).singleElement().isInstanceOfSatisfying(OperatorQueue.Send.class,
        s -> assertThat(s.attempt()).isEqualTo(1));
    assertThat(at(200)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).isEqualTo("add replica on n4 not finished within 100 ms, 2 attempts"));
  }

  @Test
  void aStalePlan_aVanishedRange_andAPassedDeadline_cancelTheOperator() {
    report(range(1, List.of("n1", "n2", "n3"), 2), "n1");
    queue.admit(move(1000), 0);
    assertThat(at(0)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).contains("changed since planned"));

    reports.clear();
    queue.admit(move(1000), 100);
    assertThat(at(100)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).isEqualTo("r1 is no longer in the map"));

    report(range(1, List.of("n1", "n2", "n3"), 1), "n1");
    queue.admit(move(250), 200);
    assertThat(at(200)).hasSize(1);
    assertThat(at(251)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).startsWith("deadline passed at step 1 of 3 (add replica on n4)"));
  }

  @Test
  void oneOperatorPerRange_andAMergeHoldsBothRanges_whileAnAdminHoldKeepsPlannedOnesOut() {
    Operator merge = new Operator(1, 1, OperatorKind.MERGE, List.of(new OpStep.Merge(2, 1, RangeEnd.INFINITY)),
        WHY, 1000);
    assertThat(queue.admit(merge, 0)).isPresent();
    Operator onRight = new Operator(2, 1, OperatorKind.REBALANCE_LEADER,
        List.of(new OpStep.TransferLeader("n1", "n2")), WHY, 1000);
    assertThat(queue.admit(onRight, 0)).isEmpty();
    assertThat(queue.holderName(2)).contains("merge");

    OperatorQueue.Hold hold = queue.reserve(List.of(3L), "admin split").orElseThrow();
    Operator onThree = new Operator(3, 1, OperatorKind.SPLIT, List.of(new OpStep.SplitAt(Optional.empty(),
        RangeEnd.INFINITY, 1, dev.rangekv.core.cluster.SplitCause.SIZE)), WHY, 1000);
    assertThat(queue.admit(onThree, 0)).as("planned: kept out").isEmpty();
    assertThat(queue.admit(onThree, 0, Optional.of(hold))).as("the holder's own").isPresent();
    assertThat(queue.locked(0)).containsExactlyInAnyOrder(1L, 2L, 3L);
  }
  @Test
  void aRefusedCall_cancelsTheOperatorAtOnce_withTheNodesAnswer() {
    report(range(1, List.of("n1", "n2", "n3"), 1), "n1");
    long id = queue.admit(move(1000), 0).orElseThrow();
    OperatorQueue.Send first = (OperatorQueue.Send) at(0).get(0);
    queue.failed(id, first.index(), "split_key: bad", OperatorQueue.Failure.REFUSED);

    assertThat(at(1)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).isEqualTo("split_key: bad"));
    assertThat(queue.locked(1)).as("backing off").containsExactly(1L);
  }

  @Test
  void aPreemptedOperator_isCancelledWithItsReason_andItsRangeIsFreeAtOnce() {
    report(range(1, List.of("n1", "n2", "n3"), 1), "n1");
    queue.admit(move(1000), 0);
    assertThat(at(0)).hasSize(1);
    assertThat(queue.runningSteps()).singleElement().satisfies(e -> assertThat(e.getValue()).isZero());

    assertThat(queue.preempt(1, "node n4 is dead")).isTrue();
    assertThat(queue.preempt(2, "no operator there")).isFalse();
    assertThat(at(1)).singleElement().isInstanceOfSatisfying(OperatorQueue.Cancelled.class,
        c -> assertThat(c.reason()).isEqualTo("node n4 is dead"));
    assertThat(queue.locked(1)).as("no back-off: a repair waits for the range").isEmpty();
    assertThat(queue.runningSteps()).isEmpty();
  }
}
