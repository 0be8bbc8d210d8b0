package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PeersHeardTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aPeerNeverHeardFrom_isNotRecent() {
    PeersHeard heard = new PeersHeard();
    heard.heard("n2", 5 * SECOND);
    assertThat(heard.within("n3", 5 * SECOND, 2 * SECOND)).isFalse();
  }

  @Test
  void aPeerHeardFrom_isRecentUntilTheWindowPasses_andAgainWhenItSpeaksAgain() {
    PeersHeard heard = new PeersHeard();
    long t0 = -3 * SECOND; // nanoTime may be negative
    heard.heard("n2", t0);
    assertThat(heard.within("n2", t0, 2 * SECOND)).isTrue();
    assertThat(heard.within("n2", t0 + 2 * SECOND - 1, 2 * SECOND)).isTrue();
    assertThat(heard.within("n2", t0 + 2 * SECOND, 2 * SECOND)).as("silent for the whole window").isFalse();
    heard.heard("n3", t0 + 3 * SECOND);
    heard.heard("n2", t0 + 3 * SECOND);
    assertThat(heard.within("n2", t0 + 4 * SECOND, 2 * SECOND)).isTrue();
    assertThat(heard.within("n3", t0 + 4 * SECOND, 2 * SECOND)).isTrue();
  }
}
