package dev.rangekv.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultLogTest {
  final FaultLog log = new FaultLog(10);

  @Test
  void aFailure_isCountedUnderTheWindowsItOverlaps_orOutside() {
    int kill = log.open("kill", 100);
    log.close(kill, 200);
    int pause = log.open("pause", 150);
    assertThat(log.failed(90, 120, "a")).isFalse();      // overlaps kill
    assertThat(log.failed(205, 208, "b")).isFalse();     // within kill's grace, and pause still open
    assertThat(log.failed(10, 20, "c")).isTrue();        // before every window
    log.close(pause, 160);
    assertThat(log.failed(300, 310, "d")).isTrue();
    assertThat(log.failuresByKind()).isEqualTo(Map.of("kill", 2L, "pause", 1L, FaultLog.OUTSIDE, 2L));
    assertThat(log.outsideSamples()).containsExactly("c", "d");
  }

  @Test
  void theLongestAcknowledgedWriteOverlappingAWindow_isItsStall() {
    int kill = log.open("kill", 100);
    log.acked(90, 400);
    log.acked(120, 130);
    log.close(kill, 200);
    log.acked(500, 900); // after the grace: no stall of the kill
    assertThat(log.longestStallByKind()).isEqualTo(Map.of("kill", 310L));
    assertThat(log.windowsByKind()).isEqualTo(Map.of("kill", 1L));
  }
}
