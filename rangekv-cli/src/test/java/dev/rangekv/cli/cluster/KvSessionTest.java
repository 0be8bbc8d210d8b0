package dev.rangekv.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.ClientOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KvSessionTest {

  @Test
  void connecting_withAShortTimeout_waitsNoLongerThanTheTimeout() {
    ClientOptions o = KvSession.connectOptions(Duration.ofMillis(300));
    assertThat(o.timeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(o.attemptTimeout()).isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void connecting_withALongTimeout_stillFailsWithinSeconds() {
    ClientOptions o = KvSession.connectOptions(Duration.ofSeconds(15));
    assertThat(o.timeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(o.attemptTimeout()).isEqualTo(Duration.ofSeconds(3));
  }
}
