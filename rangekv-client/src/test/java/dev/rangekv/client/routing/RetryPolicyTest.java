package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.routing.RetryPolicy.Kind;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  static final long LOTS = Duration.ofHours(1).toNanos();
  final RetryPolicy policy = RetryPolicy.defaults();

  static Failure unknownOutcome() {
    return new Failure.Unavailable(false, "timed out");
  }

  static Failure definite() {
    return new Failure.Unavailable(true, "no leader yet");
  }

  static Failure moved() {
    return new Failure.RangeMoved(List.of(new RangeDescriptor(7, Key.EMPTY, RangeEnd.INFINITY, List.of("n1"), 3)),
        Map.of(), "moved");
  }

  @Test
  void backoff_staysWithinTheJitteredCap_andTheCapDoublesUpToTheMax() {
    Property.named("backoff bounds").cases(1000).sizes(1, 60).check(g -> {
      int attempts = g.between(1, g.size());
      double r = g.random().nextDouble();
      long base = Duration.ofMillis(10).toNanos();
      long cap = Math.min(Duration.ofSeconds(1).toNanos(), attempts > 40 ? Long.MAX_VALUE : base << Math.min(attempts - 1, 40));
      long b = policy.backoffNanos(attempts, r);
      assertThat(b).isBetween(cap / 2, cap);
      assertThat(policy.backoffNanos(attempts, 0.0)).isEqualTo(cap / 2);
    });
  }

  @Test
  void attempts_areBoundedWhateverTheFailure() {
    for (Failure f : List.of(moved(), definite(), new Failure.RangeNotFound("x"), new Failure.NotLeader("n2", "a", true, "x"))) {
      assertThat(policy.decide(f, false, 9, false, LOTS, 0.5).kind()).isEqualTo(Kind.RETRY);
      assertThat(policy.decide(f, false, 10, false, LOTS, 0.5).kind()).isEqualTo(Kind.FAIL_EXHAUSTED);
    }
  }

  @Test
  void aWriteWithUnknownOutcome_staysAmbiguous_evenAfterDefiniteFailures() {
    RetryPolicy.Decision first = policy.decide(unknownOutcome(), true, 1, false, LOTS, 0.5);
    assertThat(first.kind()).isEqualTo(Kind.RETRY);
    assertThat(first.ambiguous()).isTrue();
    assertThat(first.freshWriteId()).isFalse();
    RetryPolicy.Decision later = policy.decide(definite(), true, 2, first.ambiguous(), LOTS, 0.5);
    assertThat(later.ambiguous()).isTrue();
    assertThat(policy.decide(definite(), true, 10, true, LOTS, 0.5).kind()).isEqualTo(Kind.FAIL_AMBIGUOUS);
    assertThat(policy.decide(definite(), true, 3, true, 1, 0.5).kind()).isEqualTo(Kind.FAIL_AMBIGUOUS);
  }

  @Test
  void aDefinitelyRefusedWrite_isRetriedUnderAFreshWriteId_soNoReplyCacheReplaysTheRefusal() {
    RetryPolicy.Decision d = policy.decide(moved(), true, 1, false, LOTS, 0.5);
    assertThat(d.freshWriteId()).isTrue();
    assertThat(d.ambiguous()).isFalse();
    assertThat(policy.decide(moved(), true, 2, true, LOTS, 0.5).freshWriteId()).isFalse();
    assertThat(policy.decide(moved(), false, 1, false, LOTS, 0.5).freshWriteId()).isFalse();
  }

  @Test
  void readsAreNeverAmbiguous() {
    RetryPolicy.Decision d = policy.decide(unknownOutcome(), false, 10, false, LOTS, 0.5);
    assertThat(d.kind()).isEqualTo(Kind.FAIL_EXHAUSTED);
    assertThat(d.ambiguous()).isFalse();
  }

  @Test
  void badInput_isNotRetried() {
    assertThat(policy.decide(new Failure.InvalidArgument("key.max-bytes", "x"), true, 1, false, LOTS, 0.5).kind())
        .isEqualTo(Kind.FAIL_NOT_RETRYABLE);
  }

  @Test
  void duplicateTooOld_getsAFreshIdOnlyWhenNoAttemptCanHaveApplied() {
    RetryPolicy.Decision fresh = policy.decide(new Failure.DuplicateTooOld("x"), true, 1, false, LOTS, 0.5);
    assertThat(fresh.kind()).isEqualTo(Kind.RETRY);
    assertThat(fresh.freshWriteId()).isTrue();
    assertThat(fresh.ambiguous()).isFalse();
    assertThat(policy.decide(new Failure.DuplicateTooOld("x"), true, 2, true, LOTS, 0.5).kind())
        .isEqualTo(Kind.FAIL_AMBIGUOUS);
  }

  @Test
  void newsIsActedOnAtOnce_thenBackoffApplies() {
    assertThat(policy.decide(moved(), false, 1, false, LOTS, 0.5).backoffNanos()).isZero();
    assertThat(policy.decide(moved(), false, 7, false, LOTS, 0.5).backoffNanos()).isZero();
    Failure hint = new Failure.NotLeader("n2", "h:2", true, "x");
    assertThat(policy.decide(hint, false, 2, false, LOTS, 0.5).backoffNanos()).isZero();
    assertThat(policy.decide(hint, false, 3, false, LOTS, 0.5).backoffNanos()).isPositive();
    assertThat(policy.decide(definite(), false, 1, false, LOTS, 0.5).backoffNanos()).isPositive();
  }

  @Test
  void aBackoffBeyondTheDeadline_endsTheCall() {
    assertThat(policy.decide(definite(), true, 5, false, 1000, 0.5).kind()).isEqualTo(Kind.FAIL_DEADLINE);
  }

  @Test
  void rangeNotFound_andEmptyNews_refreshTheCache() {
    assertThat(policy.decide(new Failure.RangeNotFound("x"), false, 1, false, LOTS, 0.5).refreshCache()).isTrue();
    assertThat(policy.decide(new Failure.RangeMoved(List.of(), Map.of(), "x"), false, 1, false, LOTS, 0.5).refreshCache())
        .isTrue();
    assertThat(policy.decide(moved(), false, 1, false, LOTS, 0.5).refreshCache()).isFalse();
  }
}
