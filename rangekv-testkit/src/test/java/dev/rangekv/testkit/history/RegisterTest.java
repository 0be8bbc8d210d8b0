package dev.rangekv.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RegisterTest {
  final Register r = new Register("k");

  @Test
  void anAcknowledgedValue_mustBeSeen_anOlderOneIsLost() {
    r.write(Optional.of("a"), Outcome.ACKED);
    r.write(Optional.of("b"), Outcome.ACKED);
    assertThat(r.observe(Optional.of("b"))).isEmpty();
    assertThat(r.observe(Optional.of("a"))).get().extracting(Violation::kind).isEqualTo(Violation.Kind.LOST);
    assertThat(r.observe(Optional.empty())).get().extracting(Violation::kind).isEqualTo(Violation.Kind.LOST);
  }

  @Test
  void aLaterAmbiguousWrite_mayBeSeen_andOnceSeenTheOlderStateMayNot() {
    r.write(Optional.of("a"), Outcome.ACKED);
    r.write(Optional.of("b"), Outcome.AMBIGUOUS);
    assertThat(r.observe(Optional.of("a"))).isEmpty();
    assertThat(r.observe(Optional.of("b"))).isEmpty();
    assertThat(r.observe(Optional.of("a"))).get().extracting(Violation::kind).isEqualTo(Violation.Kind.LOST);
  }

  @Test
  void aDefinitelyFailedWrite_mustNeverBeSeen() {
    r.write(Optional.of("a"), Outcome.ACKED);
    r.write(Optional.of("x"), Outcome.FAILED);
    assertThat(r.allowed()).containsExactly(Optional.of("a"));
    assertThat(r.observe(Optional.of("x"))).get().extracting(Violation::kind)
        .isEqualTo(Violation.Kind.REJECTED_VISIBLE);
  }

  @Test
  void anAmbiguousWriteBeforeTheLastAcknowledgedOne_isNoLongerAllowed() {
    r.write(Optional.of("a"), Outcome.AMBIGUOUS);
    r.write(Optional.empty(), Outcome.ACKED);
    assertThat(r.allowed()).containsExactly(Optional.empty());
    assertThat(r.observe(Optional.of("a"))).get().extracting(Violation::kind).isEqualTo(Violation.Kind.LOST);
  }

  @Test
  void aValueNeverWritten_isUnknown() {
    assertThat(r.observe(Optional.empty())).isEmpty();
    assertThat(r.observe(Optional.of("zz"))).get().extracting(Violation::kind)
        .isEqualTo(Violation.Kind.UNKNOWN_VALUE);
  }
}
