package dev.rangekv.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CounterModelTest {
  @Test
  void theValue_liesBetweenAcknowledgedAndAcknowledgedPlusAmbiguous() {
    CounterModel c = new CounterModel("c");
    c.increment(Outcome.ACKED);
    c.increment(Outcome.ACKED);
    c.increment(Outcome.AMBIGUOUS);
    c.increment(Outcome.FAILED);
    assertThat(c.check(2)).isEmpty();
    assertThat(c.check(3)).isEmpty();
    assertThat(c.check(1)).isPresent();
    assertThat(c.check(4)).isPresent();
  }
}
