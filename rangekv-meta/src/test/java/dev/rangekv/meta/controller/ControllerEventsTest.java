package dev.rangekv.meta.controller;


import static dev.rangekv.meta.controller.ControllerTest.figure;
import static dev.rangekv.meta.controller.ControllerTest.k;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.WeightedKeyProto;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.proto.WhyResponse;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ControllerEventsTest {
  /** One range of 3000 bytes on n1..n3 taking 5000 qps, nearly all on one key. */
  static Harness hotKeyCluster() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    for (int i = 0; i < 30; i++) {
      c.put(k(i), 100);
    }
    List<WeightedKeyProto> samples = new ArrayList<>();
    samples.add(WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k(5))).setWeight(4000).build());
    for (int i = 0; i < 99; i++) {
      samples.add(WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k(100 + i))).setWeight(10).build());
    }
    c.load(1, 5000, samples);
    return new Harness(c).start();
  }

  @Test
  void declinedLoadSplit_isLoggedOnce_notEveryTick_andAgainAfterTheQuietPeriod() {
    Harness h = hotKeyCluster();

    for (int t = 0; t < 10; t++) {
      h.tick();
    }

    assertThat(h.cluster.calls()).noneMatch(s -> s.startsWith("split"));
    assertThat(h.events("split-declined")).singleElement().satisfies(e -> {
      assertThat(e.getReason()).startsWith("one key dominates");
      assertThat(figure(e, "qps")).isEqualTo(5000.0);
      assertThat(figure(e, "minShare")).isEqualTo(0.2);
    });
    assertThat(h.events("alert-hot-key")).singleElement()
        .satisfies(e -> assertThat(e.getDetail()).contains("hot key k00005 "));

    h.clock.addAndGet(EventRecorder.QUIET_MILLIS);
    h.tick();
    assertThat(h.events("split-declined")).hasSize(2);
    assertThat(h.events("alert-hot-key")).hasSize(2);
  }

  @Test
  void why_namesTheNumbersBehindEachPolicysLatestEvaluation() {
    Harness h = hotKeyCluster();
    for (int t = 0; t < 3; t++) {
      h.tick();
    }

    WhyResponse why = Harness.call(h.service::why, WhyRequest.newBuilder().setRangeId(1).build());

    assertThat(why.getRange().getBytes()).isEqualTo(3000);
    assertThat(why.getRange().getLeaderNodeId()).isEqualTo("n1");
    assertThat(why.getDecisionsList()).extracting(EventProto::getKind)
        .containsExactly("split-declined", "no-merge", "no-move");
    EventProto split = why.getDecisions(0);
    assertThat(figure(split, "heaviestKeyShare")).isGreaterThan(0.8);
    assertThat(figure(split, "bestMinShare")).isLessThan(0.2);
    assertThat(figure(why.getDecisions(1), "minBytes")).isEqualTo(2500.0);
    assertThat(why.getEventsList()).extracting(EventProto::getKind).contains("split-declined", "alert-hot-key");
  }

  @Test
  void why_ofAQuietRange_saysNoSplitWithSizeAndLoadAgainstThresholds() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    c.put(k(1), 4000);
    Harness h = new Harness(c).start();
    h.tick();

    WhyResponse why = Harness.call(h.service::why, WhyRequest.newBuilder().setRangeId(1).build());

    EventProto split = why.getDecisions(0);
    assertThat(split.getKind()).isEqualTo("no-split");
    assertThat(split.getReason()).isEqualTo("load within split.qps");
    assertThat(figure(split, "splitQps")).isEqualTo(1000.0);
  }

  @Test
  void monotonicInserts_raiseTheMonotonicKeyAlert_once() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(k(100)), List.of("n1", "n2", "n3"));
    c.put(k(1), 3000);
    c.put(k(101), 3000);
    c.writes(2, 500, 500, 500, k(150));
    Harness h = new Harness(c).start();

    for (int t = 0; t < 15; t++) {
      h.tick();
    }

    assertThat(h.events("alert-monotonic")).singleElement().satisfies(e -> {
      assertThat(e.getRangeIdsList()).containsExactly(2L);
      assertThat(e.getDetail()).contains("bucket");
      assertThat(figure(e, "tailWriteQps")).isEqualTo(500.0);
    });
    assertThat(h.cluster.calls()).noneMatch(s -> s.startsWith("split"));
  }
}
