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
}
