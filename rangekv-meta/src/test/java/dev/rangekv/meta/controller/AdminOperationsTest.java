package dev.rangekv.meta.controller;

import static dev.rangekv.meta.controller.ControllerTest.k;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.AdminMergeRequest;
import dev.rangekv.proto.AdminMergeResponse;
import dev.rangekv.proto.AdminMoveRequest;
import dev.rangekv.proto.AdminMoveResponse;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.PreSplitResponse;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AdminOperationsTest {
  static RangeKvError invalid(Throwable t) {
    assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    return RangeKvErrors.fromThrowable(t).orElseThrow();
  }

  @Test
  void split_byKeyAlone_findsTheRange_andRejectsKeysOutsideIt() {
    Harness h = MetaServiceImplTest.threeNodes();

    AdminSplitResponse r = Harness.call(h.service::split,
        AdminSplitRequest.newBuilder().setSplitKey(ProtoValues.bytes(k(150))).build());

    assertThat(r.getLeft().getRangeId()).isEqualTo(2);
    assertThat(ProtoValues.key(r.getRight().getStart())).isEqualTo(k(150));
    h.assertMapMatchesCluster();
    assertThat(h.events("split")).singleElement()
        .satisfies(e -> assertThat(e.getRangeIdsList()).containsExactly(2L, r.getRight().getRangeId()));

    RangeKvError e = invalid(Harness.callFailing(h.service::split,
        AdminSplitRequest.newBuilder().setRangeId(1).setSplitKey(ProtoValues.bytes(k(150))).build()));
    assertThat(e.getInvalidArgument().getLimit()).isEqualTo("split_key");
    assertThat(e.getMessage()).contains("not strictly inside");
    RangeKvError unknown = invalid(Harness.callFailing(h.service::split,
        AdminSplitRequest.newBuilder().setRangeId(42).build()));
    assertThat(unknown.getMessage()).contains("unknown range 42");
  }

  @Test
  void split_afterTheLeaderMovedSinceItsLastReport_followsTheNotLeaderHint() {
    Harness h = MetaServiceImplTest.threeNodes();
    h.cluster.transferLeader(2, "n2"); // an election since the heartbeats: n1 still reported as leader of r2

    AdminSplitResponse r = Harness.call(h.service::split,
        AdminSplitRequest.newBuilder().setSplitKey(ProtoValues.bytes(k(150))).build());

    assertThat(ProtoValues.key(r.getRight().getStart())).isEqualTo(k(150));
    assertThat(h.events("failed")).isEmpty();
    h.assertMapMatchesCluster();
  }

  @Test
  void split_withoutKey_asksTheStoreForItsMidpoint() {
    Harness h = MetaServiceImplTest.threeNodes();
    Harness.call(h.service::split, AdminSplitRequest.newBuilder().setRangeId(1).build());
    assertThat(h.cluster.calls()).containsExactly("split r1 at midpoint");
  }

  @Test
  void move_validatesNodes_thenMovesAndReports() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3", "n4");
    c.tile(List.of(k(100)), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();

    RangeKvError unknownNode = invalid(Harness.callFailing(h.service::move,
        AdminMoveRequest.newBuilder().setRangeId(1).setFromNodeId("n1").setToNodeId("n9").build()));
    assertThat(unknownNode.getInvalidArgument().getLimit()).isEqualTo("node_id");
    RangeKvError notReplica = invalid(Harness.callFailing(h.service::move,
        AdminMoveRequest.newBuilder().setRangeId(1).setFromNodeId("n4").setToNodeId("n1").build()));
    assertThat(notReplica.getMessage()).contains("holds no replica");

    AdminMoveResponse r = Harness.call(h.service::move,
        AdminMoveRequest.newBuilder().setRangeId(1).setFromNodeId("n3").setToNodeId("n4").build());
    assertThat(ProtoValues.descriptor(r.getRange()).replicas()).containsExactly("n1", "n2", "n4");
    h.assertMapMatchesCluster();
    assertThat(h.events("move")).hasSize(1);
  }

  @Test
  void merge_coLocatesTheRightRangeFirst_whenReplicaSetsDiffer() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3", "n4");
    c.tile(List.of(k(100)), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    Harness.call(h.service::move, AdminMoveRequest.newBuilder().setRangeId(2).setFromNodeId("n3").setToNodeId("n4").build());

    AdminMergeResponse r = Harness.call(h.service::merge, AdminMergeRequest.newBuilder().setLeftRangeId(1).build());

    // each move swaps two replicas in one change (n1 leads: no leadership transfer is needed)
    assertThat(c.calls()).containsExactly("replace r2 n3 n4", "replace r2 n4 n3", "merge r1 r2");
    assertThat(r.getMerged().getEndInfinite()).isTrue();
    assertThat(h.meta.view().ranges()).hasSize(1);
    h.assertMapMatchesCluster();
    RangeKvError last = invalid(Harness.callFailing(h.service::merge, AdminMergeRequest.newBuilder().setLeftRangeId(1).build()));
    assertThat(last.getMessage()).contains("last range");
  }

  @Test
  void presplit_uniform_scattersReplicasEvenly() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3", "n4");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    h.heartbeatAll();

    PreSplitResponse r = Harness.call(h.service::preSplit,
        PreSplitRequest.newBuilder().setUniform(4).setScatter(true).build());

    assertThat(r.getRangesList()).hasSize(4);
    h.assertMapMatchesCluster();
    Map<String, Integer> counts = c.replicaCounts();
    assertThat(counts).containsOnlyKeys("n1", "n2", "n3", "n4");
    assertThat(counts.values()).containsOnly(3);
    assertThat(h.events("presplit")).singleElement()
        .satisfies(e -> assertThat(e.getRangeIdsList()).hasSize(4));
    assertThat(h.events("split")).hasSize(3);

    RangeKvError both = invalid(Harness.callFailing(h.service::preSplit,
        PreSplitRequest.newBuilder().setUniform(4).addSplitKeys(ProtoValues.bytes(k(1))).build()));
    assertThat(both.getInvalidArgument().getLimit()).isEqualTo("presplit");
  }

  @Test
  void presplit_ofNewEmptyRanges_isNotMergedBackDuringTheCooldown() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    Harness.call(h.service::preSplit, PreSplitRequest.newBuilder().addSplitKeys(ProtoValues.bytes(k(100)))
        .addSplitKeys(ProtoValues.bytes(k(200))).build());
    for (int t = 0; t < 3; t++) {
      h.tick();
    }
    assertThat(c.calls()).noneMatch(s -> s.startsWith("merge"));
    assertThat(h.meta.view().ranges()).hasSize(3);
  }

  @Test
  void presplit_splitsTheMiddlePointFirst_thenEachHalfInItsOwnRange() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    PreSplitRequest req = splitEvery(100, 7);

    PreSplitResponse r = Harness.call(h.service::preSplit, req);

    assertThat(r.getRangesList()).hasSize(8);
    h.assertMapMatchesCluster();
    List<String> splits = c.calls().stream().filter(s -> s.startsWith("split")).toList();
    assertThat(splits).hasSize(7);
    assertThat(splits.get(0)).as("bisection: the middle point splits the original range first")
        .isEqualTo("split r1 at " + k(400));
    assertThat(splits.subList(1, 7)).as("the halves' points split the two halves, not r1 alone")
        .anyMatch(s -> !s.startsWith("split r1 "));
  }

  @Test
  void presplit_ofManyPoints_splitsEachOfFewRangesFromItsLastPointToItsFirst() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    PreSplitRequest req = splitEvery(10, 63);

    PreSplitResponse r = Harness.call(h.service::preSplit, req);

    assertThat(r.getRangesList()).hasSize(64);
    h.assertMapMatchesCluster();
    List<String> splits = c.calls().stream().filter(s -> s.startsWith("split")).toList();
    assertThat(splits).hasSize(63);
    Map<String, List<String>> byRange = new java.util.LinkedHashMap<>();
    for (String s : splits) {
      String[] parts = s.split(" at ", 2); // "split rN at KEY"
      byRange.computeIfAbsent(parts[0], x -> new java.util.ArrayList<>()).add(parts[1]);
    }
    assertThat(byRange).as("a split keeps its range's left part: one range per chain is split again and"
        + " again, never a child that just elected its first leader").hasSize(PreSplit.CHAINS);
    byRange.forEach((range, keys) -> assertThat(keys).as(range + "'s split keys, right to left")
        .isSortedAccordingTo(java.util.Comparator.<String>reverseOrder()));
  }

  @Test
  void presplit_asksForTheChainsChildrenBornDormant_neverForARangeItSplitsAgain() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    PreSplitRequest req = splitEvery(10, 63);

    Harness.call(h.service::preSplit, req);

    List<String> calls = c.calls();
    List<String> bornDormant = calls.stream().filter(s -> s.startsWith("born dormant "))
        .map(s -> s.substring("born dormant ".length())).toList();
    assertThat(bornDormant).as("every split's child but the bisection's, which the chains split again")
        .hasSize(63 - (PreSplit.CHAINS - 1))
        .allSatisfy(child -> assertThat(calls).as("splits of " + child).noneMatch(s -> s.startsWith("split " + child + " ")));
  }

  @Test
  void presplit_ofARangeOnOneNode_addsItsReplicasFirst_soEveryChildIsBornWithThree() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1"));
    Harness h = new Harness(c).start();
    h.heartbeatAll();
    PreSplitRequest req = splitEvery(100, 7);

    PreSplitResponse r = Harness.call(h.service::preSplit, req);

    assertThat(r.getRangesList()).hasSize(8)
        .allSatisfy(d -> assertThat(d.getReplicasList()).hasSize(3));
    h.assertMapMatchesCluster();
    List<String> changes = c.calls().stream().filter(s -> s.startsWith("add") || s.startsWith("split")).toList();
    assertThat(changes.subList(0, 2)).as("the range to split gets its replicas before the first split")
        .containsExactlyInAnyOrder("add r1 n2", "add r1 n3");
    assertThat(changes.stream().filter(s -> s.startsWith("add"))).as("no child needs a replica added").hasSize(2);
  }

  /** A pre-split at {@code points} keys {@code step} apart: k(step), k(2 * step), ... */
  private static PreSplitRequest splitEvery(int step, int points) {
    PreSplitRequest.Builder req = PreSplitRequest.newBuilder();
    for (int i = 1; i <= points; i++) {
      req.addSplitKeys(ProtoValues.bytes(k(i * step)));
    }
    return req.build();
  }
}
