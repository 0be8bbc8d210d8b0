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
  static final int CAP = RetryPolicy.DEFAULT_MAX_ATTEMPTS;
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
      long base = policy.baseBackoff().toNanos();
      long cap = Math.min(policy.maxBackoff().toNanos(), attempts > 40 ? Long.MAX_VALUE : base << Math.min(attempts - 1, 40));
      long b = policy.backoffNanos(attempts, r);
      assertThat(b).isBetween(cap / 2, cap);
      assertThat(policy.backoffNanos(attempts, 0.0)).isEqualTo(cap / 2);
    });
  }

  @Test
  void attempts_areBoundedWhateverTheFailure() {
    for (Failure f : List.of(moved(), definite(), new Failure.RangeNotFound("x"), new Failure.NotLeader("n2", "a", true, "x"))) {
      assertThat(policy.decide(f, false, CAP - 1, false, LOTS, 0.5).kind()).isEqualTo(Kind.RETRY);
      assertThat(policy.decide(f, false, CAP, false, LOTS, 0.5).kind()).isEqualTo(Kind.FAIL_EXHAUSTED);
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
    assertThat(policy.decide(definite(), true, CAP, true, LOTS, 0.5).kind()).isEqualTo(Kind.FAIL_AMBIGUOUS);
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
    RetryPolicy.Decision d = policy.decide(unknownOutcome(), false, CAP, false, LOTS, 0.5);
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

  @Test
  void aBackoffPastTheDeadline_shrinksToHalfTheTimeLeft_soOneLastAttemptRuns() {
    long left = Duration.ofMillis(100).toNanos();
    RetryPolicy.Decision d = policy.decide(definite(), false, 12, false, left, 0.9);
    assertThat(d.kind()).isEqualTo(Kind.RETRY);
    assertThat(d.backoffNanos()).isEqualTo(left / 2);
  }

  static Failure churn(java.util.SplittableRandom r) {
    return switch (r.nextInt(5)) {
      case 0 -> new Failure.NotLeader("", "", true, "no leader known");
      case 1 -> new Failure.Unavailable(true, "LeaderSteppingDownException: stepping down");
      case 2 -> new Failure.Unavailable(true, "range 7 is not ready on this node");
      case 3 -> new Failure.RangeNotFound("not here yet");
      default -> new Failure.NotLeader("n" + r.nextInt(3), "h:1", true, "hint");
    };
  }

  @Test
  void leadershipChurn_isWaitedOutUntilTheDeadline_neverEndsByTheAttemptCap() {
    // A call against nodes that keep refusing with routine churn: it retries with backoff until the
    // deadline is (nearly) spent; only the deadline ends it, never the attempt cap.
    Property.named("churn waits until the deadline").cases(300).check(g -> {
      long deadline = Duration.ofMillis(g.between(200, 20_000)).toNanos();
      long now = 0;
      boolean write = g.random().nextBoolean();
      for (int attempt = 1; ; attempt++) {
        now += Duration.ofMillis(g.between(0, 20)).toNanos(); // the attempt's own round trip
        RetryPolicy.Decision d = policy.decide(churn(g.random()), write, attempt, false,
            deadline - now, g.random().nextDouble());
        if (d.kind() != Kind.RETRY) {
          assertThat(d.kind()).isEqualTo(Kind.FAIL_DEADLINE);
          assertThat(deadline - now).isLessThan(Duration.ofMillis(20).toNanos() + 1);
          assertThat(d.ambiguous()).isFalse();
          break;
        }
        assertThat(attempt).isLessThan(CAP);
        now += d.backoffNanos();
      }
    });
  }

  @Test
  void endlessNews_endsAtTheAttemptCap_whateverTheDeadline() {
    // invariant 5: a corrupt cache or lying node answering fresh descriptors forever is cut off
    Property.named("news is capped").cases(50).check(g -> {
      RetryPolicy p = new RetryPolicy(g.between(1, 200), Duration.ofMillis(1), Duration.ofMillis(5));
      int attempt = 1;
      RetryPolicy.Decision d;
      while ((d = p.decide(moved(), g.random().nextBoolean(), attempt, false, LOTS, 0.3)).kind() == Kind.RETRY) {
        attempt++;
      }
      assertThat(d.kind()).isEqualTo(Kind.FAIL_EXHAUSTED);
      assertThat(attempt).isEqualTo(p.maxAttempts());
    });
  }
}
