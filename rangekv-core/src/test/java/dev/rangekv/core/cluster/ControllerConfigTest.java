package dev.rangekv.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ControllerConfigTest {

  @Test
  void defaults_followTheIssue() {
    ControllerConfig c = ControllerConfig.defaults();
    assertThat(c.maxBytes()).isEqualTo(64L << 20);
    assertThat(c.minBytes()).isEqualTo(16L << 20);
    assertThat(c.mergeQps()).isEqualTo(c.splitQps() / 10);
    assertThat(c.loadSplitIntervals()).isEqualTo(3);
    assertThat(c.loadSplitMinShare()).isEqualTo(0.2);
    assertThat(c.loadSplitMinSamples()).isEqualTo(100);
    assertThat(c.splitCooldownMillis()).isEqualTo(600_000);
    assertThat(c.maxMovesInFlight()).isEqualTo(2);
  }

  @Test
  void demoSizes_deriveMinBytesFromMaxBytes() {
    ControllerConfig c = ControllerConfig.builder().maxBytes(1 << 20).build();
    assertThat(c.minBytes()).isEqualTo(256 << 10);
  }

  @Test
  void minBytesNearHalfOfMax_isRefusedNamingBothSettings() {
    assertThatThrownBy(() -> ControllerConfig.builder().maxBytes(1000).minBytes(450).build())
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("range.min-bytes=450").hasMessageContaining("range.max-bytes=1000");
  }

  @Test
  void mergeQpsAboveSplitQps_isRefusedNamingBothSettings() {
    assertThatThrownBy(() -> ControllerConfig.builder().splitQps(100).mergeQps(150).build())
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("merge.qps=150").hasMessageContaining("split.qps=100");
  }

  @Test
  void mergeQpsJustUnderSplitQps_isStillRefused() {
    assertThatThrownBy(() -> ControllerConfig.builder().splitQps(100).mergeQps(60).build())
        .hasMessageContaining("merge.qps");
    assertThat(ControllerConfig.builder().splitQps(100).mergeQps(25).build().mergeQps()).isEqualTo(25);
  }

  @Test
  void cooldownShorterThanTheLoadEvidenceWindow_isRefused() {
    assertThatThrownBy(() -> ControllerConfig.builder().tickMillis(10_000).loadSplitIntervals(3)
        .splitCooldownMillis(20_000).build())
        .hasMessageContaining("merge.split-cooldown=20000ms").hasMessageContaining("split.load-intervals");
  }

  @Test
  void everyBrokenRule_isReportedAtOnce() {
    InvalidConfigException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidConfigException.class,
        () -> ControllerConfig.builder().maxBytes(1000).minBytes(900).splitQps(10).mergeQps(10)
            .maxMovesInFlight(0).balanceTolerance(1.5).balanceMinGain(-0.1).deadNodeTimeoutMillis(1000).build());
    assertThat(e.problems()).hasSize(6);
    assertThat(e.problems()).anyMatch(p -> p.startsWith("rebalance.max-moves"))
        .anyMatch(p -> p.startsWith("rebalance.tolerance")).anyMatch(p -> p.startsWith("node.dead-timeout"))
        .anyMatch(p -> p.startsWith("rebalance.min-gain"));
  }

  @Test
  void settingsByConfigName_buildTheSameConfig() {
    ControllerConfig c = ControllerConfig.builder().set("range.max-bytes", "1048576").set("split.qps", "400")
        .set("merge.split-cooldown", "60000").set("rebalance.min-gain", "0.25").build();
    assertThat(c).isEqualTo(ControllerConfig.builder().maxBytes(1 << 20).splitQps(400).splitCooldownMillis(60_000)
        .balanceMinGain(0.25).build());
    assertThatThrownBy(() -> ControllerConfig.builder().set("range.max-byte", "1"))
        .hasMessageContaining("unknown controller setting range.max-byte");
    assertThatThrownBy(() -> ControllerConfig.builder().set("split.qps", "lots")).hasMessageContaining("split.qps");
  }

  @Test
  void explanation_rendersReasonAndFigures() {
    Explanation e = Explanation.of("size above max-bytes").with("bytes", 70).with("share", 0.25).build();
    assertThat(e).hasToString("size above max-bytes (bytes=70, share=0.250)");
    assertThat(e.figure("bytes")).contains(70.0);
  }
}
