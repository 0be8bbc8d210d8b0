package dev.rangekv.core.dormancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DormancyPolicyPropertyTest {

  /**
   * A random history of one range: its leader took over at time 0, then requests came at {@code
   * requests}; and the leader's view at the decision, at {@code now}.
   */
  private record Case(long idleMillis, long freshIdleMillis, List<Long> requests, long now, int replicas,
      int caughtUp, boolean frozen, boolean inFlight, boolean ready) {
    RangeActivity activity() {
      long last = requests.stream().mapToLong(Long::longValue).max().orElse(0);
      return new RangeActivity(last, replicas, caughtUp, frozen, inFlight, ready, !requests.isEmpty());
    }

    DormancyPolicy policy() {
      return new DormancyPolicy(idleMillis, freshIdleMillis);
    }

    /** The model: brute force over every request, not just the last one. */
    boolean modelSleeps() {
      if (idleMillis == 0 || !ready || inFlight || frozen || caughtUp < replicas - 1) {
        return false;
      }
      // led since 0: a new leader waits the idle period too, the shorter one while nothing requested it
      if (now < (requests.isEmpty() ? freshIdleMillis : idleMillis)) {
        return false;
      }
      for (long t : requests) {
        if (now - t < idleMillis) {
          return false;
        }
      }
      return true;
    }
  }

  private static Case randomCase(Gen gen) {
    long idle = gen.chance(0.1) ? 0 : gen.between(1, 100);
    long fresh = gen.chance(0.2) ? idle : gen.between(0, (int) idle);
    List<Long> requests = new ArrayList<>();
    int n = gen.between(0, gen.size());
    long t = 0;
    for (int i = 0; i < n; i++) {
      t += gen.between(0, 40);
      requests.add(t);
    }
    long now = t + gen.between(0, 150);
    int replicas = gen.between(1, 5);
    int caughtUp = gen.chance(0.7) ? replicas - 1 : gen.between(0, replicas - 1);
    return new Case(idle, fresh, requests, now, replicas, caughtUp, gen.chance(0.1), gen.chance(0.1), gen.chance(0.9));
  }

  @Test
  void decide_matchesTheBruteForceModel() {
    Property.named("dormancy decision = model").cases(2000).sizes(0, 30).check(gen -> {
      Case c = randomCase(gen);
      DormancyPolicy.Verdict v = c.policy().decide(c.activity(), c.now());
      assertThat(v.sleep()).as("%s -> %s", c, v).isEqualTo(c.modelSleeps());
      assertThat(v.reason()).isNotEmpty();
    });
  }

  @Test
  void sleepsFrom_isExactlyWhenTheDecisionTurnsToSleep_whileNothingButTheClockMoves() {
    Property.named("sleepsFrom = first sleeping moment").cases(2000).sizes(0, 30).check(gen -> {
      Case c = randomCase(gen);
      DormancyPolicy policy = c.policy();
      java.util.OptionalLong from = policy.sleepsFrom(c.activity());
      // every moment from the activity's time to well past the longest idle period, against decide
      long last = c.activity().lastRequestMillis();
      for (long t = last; t <= last + 250; t++) {
        boolean expected = from.isPresent() && t >= from.getAsLong();
        assertThat(policy.decide(c.activity(), t).sleep()).as("%s at %d, sleepsFrom %s", c, t, from)
            .isEqualTo(expected);
      }
    });
  }

  @Test
  void aChild_isBornDormant_exactlyWhenItsSplitAsks_andDormancyIsOn() {
    Property.named("born dormant = asked and dormancy on").cases(200).sizes(0, 10).check(gen -> {
      Case c = randomCase(gen);
      boolean asked = gen.chance(0.5);
      assertThat(c.policy().childBornDormant(asked)).as("%s asked=%s", c, asked).isEqualTo(asked && c.idleMillis() > 0);
    });
  }

  @Test
  void aSleepingVerdict_holdsLaterWhileNothingHappens() {
    Property.named("sleep is stable without requests").cases(1000).sizes(0, 30).check(gen -> {
      Case c = randomCase(gen);
      DormancyPolicy policy = c.policy();
      long later = c.now() + gen.between(0, 1000);
      if (policy.decide(c.activity(), c.now()).sleep()) {
        assertThat(policy.decide(c.activity(), later).sleep()).as("%s at %d", c, later).isTrue();
      }
    });
  }

  @Test
  void aRequestWithinTheIdlePeriod_keepsTheRangeAwake() {
    Property.named("a recent request keeps it awake").cases(1000).sizes(1, 30).check(gen -> {
      Case c = randomCase(gen);
      if (c.idleMillis() == 0) {
        return;
      }
      long request = c.now() - gen.between(0, (int) c.idleMillis() - 1);
      RangeActivity a = c.activity();
      RangeActivity touched = new RangeActivity(Math.max(a.lastRequestMillis(), request), a.replicas(),
          a.followersCaughtUp(), a.frozen(), a.operationInFlight(), a.leaderReady(), true);
      assertThat(c.policy().decide(touched, c.now()).sleep()).as("%s", c).isFalse();
    });
  }

  @Test
  void aRangeNeverRequested_sleepsAfterTheFreshPeriod_notTheWholeIdlePeriod() {
    DormancyPolicy policy = new DormancyPolicy(60_000);
    RangeActivity fresh = new RangeActivity(0, 3, 2, false, false, true, false);
    assertThat(policy.decide(fresh, DormancyPolicy.DEFAULT_FRESH_IDLE_MILLIS - 1).sleep()).isFalse();
    assertThat(policy.decide(fresh, DormancyPolicy.DEFAULT_FRESH_IDLE_MILLIS).sleep()).isTrue();
    RangeActivity requested = new RangeActivity(0, 3, 2, false, false, true, true);
    assertThat(policy.decide(requested, DormancyPolicy.DEFAULT_FRESH_IDLE_MILLIS).sleep()).isFalse();
    assertThat(new DormancyPolicy(2_000).freshIdleMillis()).as("never longer than the idle period").isEqualTo(2_000);
  }
}
