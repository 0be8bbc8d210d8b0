package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeLivenessTest {
  @Test
  void aNodeIsLiveUntilTheTimeoutAfterItWasLastHeard_andNeverBeforeItWasHeard() {
    NodeLiveness liveness = new NodeLiveness(2_000);
    assertThat(liveness.live("n2", 1_000)).isFalse();
    liveness.heard("n2", 1_000);
    assertThat(liveness.live("n2", 2_999)).isTrue();
    assertThat(liveness.live("n2", 3_000)).isFalse();
    liveness.heard("n2", 2_500);
    assertThat(liveness.live("n2", 3_000)).isTrue();
    assertThat(liveness.live("n3", 3_000)).isFalse();
  }

  @Test
  void keepAlivesGoFourTimesPerTimeout_soOneLostEnvelopeDoesNotMakeANodeLookDead() {
    assertThat(new NodeLiveness(2_000).keepAliveMillis()).isEqualTo(500);
  }

  @Test
  void theEpochMoves_exactlyWhenTheSetOfLivePeersChanged() {
    NodeLiveness liveness = new NodeLiveness(2_000);
    java.util.List<String> peers = java.util.List.of("n2", "n3");
    liveness.observe(peers, 0);
    long none = liveness.epoch();
    liveness.heard("n2", 100);
    liveness.heard("n3", 100);
    liveness.observe(peers, 500);
    long both = liveness.epoch();
    assertThat(both).isGreaterThan(none);
    liveness.heard("n2", 1_000);
    liveness.observe(peers, 1_500); // still both live: no move
    assertThat(liveness.epoch()).isEqualTo(both);
    liveness.observe(peers, 2_100); // n3 unheard for 2 s
    long onlyN2 = liveness.epoch();
    assertThat(onlyN2).isGreaterThan(both);
    liveness.heard("n3", 2_200);
    liveness.observe(peers, 2_300); // n3 back
    assertThat(liveness.epoch()).isGreaterThan(onlyN2);
  }
}
