package dev.rangekv.server.dormancy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class QuietRangesTest {
  @Test
  void aParkedRange_isSkippedWhileItsStampHolds_untilItsMoment() {
    QuietRanges quiet = new QuietRanges();
    quiet.park(1, 7, 1_000);
    assertThat(quiet.skips(1, 7, 999)).isTrue();
    assertThat(quiet.skips(1, 7, 1_000)).as("its moment came").isFalse();
    assertThat(quiet.skips(1, 8, 500)).as("another stamp").isFalse();
    assertThat(quiet.skips(1, 0, 500)).as("awake").isFalse();
    assertThat(quiet.skips(2, 7, 500)).as("never parked").isFalse();
  }

  @Test
  void anAwakeVisit_orAFailedOne_unparksTheRange() {
    QuietRanges quiet = new QuietRanges();
    quiet.park(1, 7, Long.MAX_VALUE);
    quiet.park(1, 0, Long.MAX_VALUE); // visited while awake
    assertThat(quiet.skips(1, 7, 0)).isFalse();
    quiet.park(2, 7, Long.MAX_VALUE);
    quiet.forget(2);
    assertThat(quiet.skips(2, 7, 0)).isFalse();
    assertThat(quiet.size()).isZero();
  }

  @Test
  void rangesNoLongerHeld_areForgotten() {
    QuietRanges quiet = new QuietRanges();
    quiet.park(1, 7, Long.MAX_VALUE);
    quiet.park(2, 7, Long.MAX_VALUE);
    quiet.retain(Set.of(2L));
    assertThat(quiet.size()).isEqualTo(1);
    assertThat(quiet.skips(2, 7, 0)).isTrue();
  }
}
