package dev.rangekv.meta.controller;

import static dev.rangekv.meta.controller.ControllerTest.k;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ControllerConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ControllerLoopTest {
  @Test
  void loop_ticksOnItsOwnThread_untilStopped() throws Exception {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(k(100)), List.of("n1", "n2", "n3"));
    ControllerConfig fast = ControllerConfig.builder().tickMillis(20).splitCooldownMillis(1000)
        .deadNodeTimeoutMillis(1000).build();
    Harness h = new Harness(c, fast, Runnable::run).start();

    try (ControllerLoop loop = new ControllerLoop(h.controller, System::currentTimeMillis)) {
      loop.start();
      assertThat(loop.isRunning()).isTrue();
      ControllerTest.await(() -> !h.controller.why().decisions(2).isEmpty());
      loop.stop();
      assertThat(loop.isRunning()).isFalse();
    }
    assertThat(h.controller.why().decisions(1)).extracting(e -> e.kind()).contains("no-split");
  }
}
