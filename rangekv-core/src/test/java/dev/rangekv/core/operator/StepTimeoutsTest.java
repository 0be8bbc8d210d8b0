package dev.rangekv.core.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepTimeoutsTest {
  static final StepTimeouts T = new StepTimeouts(100, 1000, 3);
  static final OpStep FAST = new OpStep.RemoveReplica("n1");
  static final OpStep SLOW = new OpStep.AddReplica("n4");

  @Test
  void retryDelay_startsAtATenthOfAFastAttempt_doubles_andNeverExceedsTheAttempt() {
    assertThat(List.of(0, 1, 2, 3, 4, 62).stream().map(a -> T.retryDelay(FAST, a)))
        .containsExactly(10L, 20L, 40L, 80L, 100L, 100L);
    assertThat(T.retryDelay(SLOW, 4)).as("a slow step waits like a fast one, up to its own timeout").isEqualTo(160);
    assertThat(T.retryDelay(SLOW, 10)).isEqualTo(1000);
  }

  @Test
  void deadline_coversEveryAttemptOfEveryStep() {
    assertThat(T.deadline(List.of(FAST, SLOW), 5)).isEqualTo(5 + 3 * 100 + 3 * 1000);
  }

  @Test
  void rejectsNonPositiveTimeoutsAndNoAttempts() {
    assertThatThrownBy(() -> new StepTimeouts(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new StepTimeouts(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
