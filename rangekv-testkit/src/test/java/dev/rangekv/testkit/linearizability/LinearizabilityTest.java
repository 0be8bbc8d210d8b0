package dev.rangekv.testkit.linearizability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LinearizabilityTest {
  static final long NEVER = Operation.NEVER;
  final Ops k = new Ops("k");

  @Test
  void aReadOfTheLastAcknowledgedWrite_isLinearizable() {
    assertThat(k.put(1, "a", 0, 1).put(1, "b", 2, 3).get(2, "b", 4, 5).linearizable()).isTrue();
  }

  @Test
  void readsConcurrentWithAWrite_mayEachSeeOldOrNew() {
    k.put(1, "a", 0, 10).get(2, null, 1, 2).get(2, "a", 3, 4).get(3, null, 1, 9);
    assertThat(k.linearizable()).isTrue();
  }

  @Test
  void aReadAfterAnAcknowledgedWrite_thatSeesTheOldState_isNotLinearizable() {
    assertThat(k.put(1, "a", 0, 1).get(2, null, 2, 3).linearizable()).isFalse();
  }

  @Test
  void onceAReadSawTheNewValue_aLaterReadMayNotSeeTheOld() {
    k.put(1, "a", 0, 10).get(2, "a", 1, 2).get(2, null, 3, 4);
    assertThat(k.linearizable()).isFalse();
  }

  @Test
  void readsMayNotSeeTwoConcurrentWritesInOppositeOrders() {
    k.put(1, "a", 0, 10).put(2, "b", 0, 10).get(3, "a", 11, 12).get(3, "b", 13, 14).get(4, "a", 15, 16);
    assertThat(k.linearizable()).isFalse();
  }

  @Test
  void aValueNeverWritten_isNotLinearizable() {
    assertThat(k.get(1, "ghost", 0, 1).linearizable()).isFalse();
  }

  @Test
  void anAmbiguousWriteThatApplied_mayBeSeen_evenLongAfter() {
    k.put(1, "a", 0, 1).put(1, "x", 2, NEVER).get(2, "a", 5, 6).get(2, "x", 100, 101);
    assertThat(k.linearizable()).isTrue();
  }

  @Test
  void anAmbiguousWriteThatDidNotApply_leavesTheOldValue() {
    k.put(1, "a", 0, 1).put(1, "x", 2, NEVER).get(2, "a", 5, 6).get(2, "a", 100, 101);
    assertThat(k.linearizable()).isTrue();
  }

  @Test
  void anAmbiguousWrite_appliesAtMostOnce() {
    k.put(1, "x", 0, NEVER).get(2, "x", 5, 6).put(2, "y", 7, 8).get(2, "x", 9, 10);
    assertThat(k.linearizable()).isFalse();
  }

  @Test
  void anAmbiguousWrite_cannotTakeEffectBeforeItsInvocation() {
    k.get(2, "x", 0, 1).put(1, "x", 2, NEVER);
    assertThat(k.linearizable()).isFalse();
  }

  @Test
  void anAmbiguousRead_constrainsNothing() {
    k.put(1, "a", 0, 1).get(2, "zz", 2, NEVER);
    assertThat(k.linearizable()).isTrue();
  }

  @Test
  void twoCompareAndSetsFromTheSameValue_cannotBothSwap() {
    k.put(1, "0", 0, 1).casSwapped(2, "0", "1", 2, 5).casSwapped(3, "0", "2", 2, 5);
    assertThat(k.linearizable()).isFalse();
  }

  @Test
  void aRefusedCompareAndSet_mustHaveFoundWhatItReports() {
    assertThat(new Ops("k").put(1, "0", 0, 1).casSwapped(2, "0", "1", 2, 5).casRefused(3, "0", "2", "1", 2, 5)
        .linearizable()).isTrue();
    assertThat(new Ops("k").put(1, "0", 0, 1).casSwapped(2, "0", "1", 2, 5).casRefused(3, "0", "2", "7", 2, 5)
        .linearizable()).isFalse();
    assertThat(new Ops("k").put(1, "0", 0, 1).casRefused(3, "0", "2", "0", 2, 5).linearizable())
        .as("a refused CAS cannot have found its expected value").isFalse();
  }

  @Test
  void anAmbiguousCompareAndSet_appliesOnlyWhereItsExpectationHolds() {
    // "1" can come only from the CAS, which needs "0": it applied between the put and the first get
    assertThat(new Ops("k").put(1, "0", 0, 1).casSwapped(2, "9", "1", 2, NEVER).get(3, "1", 5, 6).linearizable())
        .isFalse();
    assertThat(new Ops("k").put(1, "0", 0, 1).casSwapped(2, "0", "1", 2, NEVER).get(3, "1", 5, 6).linearizable())
        .isTrue();
    assertThat(new Ops("k").put(1, "0", 0, 1).casSwapped(2, "0", "1", 2, NEVER).put(1, "5", 3, 4)
        .get(3, "1", 5, 6).linearizable())
        .as("the CAS found \"0\" only before the put of \"5\", so \"1\" cannot be the last value").isFalse();
  }

  @Test
  void deletes_makeTheKeyAbsent() {
    assertThat(new Ops("k").put(1, "a", 0, 1).delete(1, 2, 3).get(2, null, 4, 5).linearizable()).isTrue();
    assertThat(new Ops("k").put(1, "a", 0, 1).delete(1, 2, 3).get(2, "a", 4, 5).linearizable()).isFalse();
    assertThat(new Ops("k").put(1, "a", 0, 1).casSwapped(2, "a", null, 2, 3).get(2, null, 4, 5).linearizable())
        .isTrue();
  }

  @Test
  void theReport_namesOnlyTheFailingKey_withASmallWitness() {
    Ops good = new Ops("good").put(1, "a", 0, 1).get(2, "a", 2, 3);
    Ops bad = new Ops("bad");
    for (int i = 0; i < 20; i++) {
      bad.put(1, "v" + i, 10 * i, 10 * i + 1).get(2, "v" + i, 10 * i + 2, 10 * i + 3);
    }
    bad.get(3, "v3", 500, 501); // stale: v19 was acknowledged long before
    List<Operation> all = new ArrayList<>(good.list);
    all.addAll(bad.list);
    Linearizability.Report report = Linearizability.check(all);
    assertThat(report.linearizable()).isFalse();
    assertThat(report.anomalies()).hasSize(1);
    Anomaly a = report.anomalies().get(0);
    assertThat(a.key()).isEqualTo("bad");
    assertThat(a.operations()).isEqualTo(41);
    // put v3 (whose value the stale read saw), the last put, and the stale read
    assertThat(a.witness()).hasSize(3);
    assertThat(a.witness().get(0).call()).isEqualTo(new Call.Put("v3"));
    assertThat(a.witness().get(1).call()).isEqualTo(new Call.Put("v19"));
    assertThat(a.witness().get(2).call()).isEqualTo(new Call.Get());
    assertThat(a.toString()).contains("key=bad", "put \"v3\"", "get -> \"v3\"");
    // the puts of v4..v18 were overwritten before the read began; the gets were not needed to fail.
    // Without the later put or the stale read it passes
    for (int i = 1; i < a.witness().size(); i++) {
      List<Operation> less = new ArrayList<>(a.witness());
      less.remove(i);
      assertThat(Linearizability.linearizable(less)).isTrue();
    }
  }

  @Test
  void theWitness_keepsTheDeleteThatMakesAReadStale_andDropsWritesNothingCouldSee() {
    k.put(1, "a", 0, 1).delete(1, 2, 3).get(2, null, 4, 5).get(2, "a", 6, 7);
    assertThat(Linearizability.check(k.list).anomalies().get(0).witness()).extracting(Operation::call)
        .containsExactly(new Call.Put("a"), new Call.Delete(), new Call.Get());
    Ops overwritten = new Ops("k").put(1, "a", 0, 1).put(1, "x", 2, 3).delete(1, 4, 5).put(1, "b", 6, 7)
        .get(2, "a", 8, 9);
    assertThat(Linearizability.check(overwritten.list).anomalies().get(0).witness()).extracting(Operation::call)
        .containsExactly(new Call.Put("a"), new Call.Put("b"), new Call.Get());
  }

  @Test
  void theWitness_endsWhereTheHistoryFirstFails_withRunningCallsUnknown() {
    k.put(1, "a", 0, 1).get(2, null, 2, 3).put(3, "b", 2, 50).get(2, "b", 60, 61);
    List<Operation> cut = Shrink.cut(k.list);
    assertThat(cut).hasSize(3);
    assertThat(cut.get(2).ambiguous()).as("the put still running at the cut").isTrue();
  }

  @Test
  void theRecorder_dropsDefinitelyFailedCalls_andCountsOpenOnesAsAmbiguous() {
    AtomicLong clock = new AtomicLong();
    History h = new History(clock::incrementAndGet);
    int failed = h.invoke(1, "k", new Call.Put("x"));
    h.failed(failed);
    int open = h.invoke(1, "k", new Call.Put("y"));
    int read = h.invoke(2, "k", new Call.Get());
    h.complete(read, new Result.Read(Ops.v("y")));
    assertThat(h.operations()).hasSize(2);
    assertThat(h.operations()).filteredOn(o -> o.id() == open).singleElement()
        .extracting(Operation::ambiguous).isEqualTo(true);
    assertThat(Linearizability.check(h.operations()).linearizable()).isTrue();
    int stale = h.invoke(2, "k", new Call.Get());
    h.complete(stale, new Result.Read(Ops.v("x")));
    assertThat(Linearizability.check(h.operations()).linearizable()).as("a failed put was seen").isFalse();
    assertThatThrownBy(() -> h.complete(stale, new Result.Read(Ops.v("x")))).isInstanceOf(IllegalStateException.class);
  }
}
