package dev.rangekv.meta.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The controller grows the meta range onto joined nodes and moves voters off dead ones. */
class MetaVoterStepTest {
  @Test
  void aClusterBootstrappedOnOneNode_growsItsMetaRangeToThreeVoters() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3", "n4");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c);
    h.meta.setVoters(List.of("n1"));
    h.start();

    for (int t = 0; t < 5; t++) {
      h.tick();
    }

    assertThat(h.meta.voterIds()).containsExactly("n1", "n2", "n3");
    assertThat(c.calls()).filteredOn(s -> s.startsWith("meta-replica"))
        .containsExactly("meta-replica n2 voters [n1, n2]", "meta-replica n3 voters [n1, n2, n3]");
    assertThat(h.events("meta-voters")).hasSize(2).allSatisfy(e ->
        assertThat(e.getReason()).isEqualTo("meta range below its voter target"));
    assertThat(h.events("meta-voters").get(1).getDetail()).isEqualTo("meta voters [n1, n2] -> [n1, n2, n3]");
  }

  @Test
  void aVoterOnADeadNode_isReplacedByALiveNode() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3", "n4");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c).start();
    h.tick();
    c.kill("n3");

    for (int t = 0; t < 10 && h.meta.voterIds().contains("n3"); t++) {
      h.tick();
    }

    assertThat(h.meta.voterIds()).containsExactly("n1", "n2", "n4");
    assertThat(h.events("meta-voters")).singleElement().satisfies(e ->
        assertThat(e.getReason()).isEqualTo("meta voter on a dead node"));
  }

  @Test
  void aFailedPreparation_isAFailedEvent_andTheVotersStayAsTheyWere() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(), List.of("n1", "n2", "n3"));
    Harness h = new Harness(c);
    h.meta.setVoters(List.of("n1"));
    h.start();
    c.failNext("meta-replica", new IllegalStateException("disk full"));

    h.tick();

    assertThat(h.meta.voterIds()).containsExactly("n1");
    assertThat(h.events("failed")).singleElement().satisfies(e ->
        assertThat(e.getReason()).isEqualTo("meta-voters failed: disk full"));
  }
}
