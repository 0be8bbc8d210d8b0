package dev.rangekv.core.dormancy;

/**
 * Decides whether an idle range goes dormant: only when dormancy is on, its leader is ready, nothing
 * is in flight, it is not frozen, every follower is up and caught up (so every replica applies the
 * dormancy entry and none has to be repaired while closed), and no request arrived for
 * {@code idleMillis}. CockroachDB's quiescence asks the same of a range before it stops ticking.
 * Pure and immutable.
 *
 * @param idleMillis how long a range must go without requests; 0 turns dormancy off
 */
public record DormancyPolicy(long idleMillis) {
  /** Ranges go dormant after 60 s without requests. */
  public static final long DEFAULT_IDLE_MILLIS = 60_000;

  public DormancyPolicy {
    if (idleMillis < 0) {
      throw new IllegalArgumentException("idleMillis must be >= 0 (0 = never dormant), got " + idleMillis);
    }
  }

  /** Dormancy off: ranges never go dormant. */
  public static DormancyPolicy off() {
    return new DormancyPolicy(0);
  }

  public boolean enabled() {
    return idleMillis > 0;
  }

  /** The outcome for one range at {@code nowMillis}: sleep, or why not. */
  public Verdict decide(RangeActivity a, long nowMillis) {
    if (!enabled()) {
      return Verdict.awake("dormancy is off");
    }
    if (!a.leaderReady()) {
      return Verdict.awake("leader not ready");
    }
    if (a.operationInFlight()) {
      return Verdict.awake("operation in flight");
    }
    if (a.frozen()) {
      return Verdict.awake("frozen for a merge");
    }
    if (a.followersCaughtUp() < a.replicas() - 1) {
      return Verdict.awake("replica down or behind");
    }
    long idle = nowMillis - a.lastRequestMillis();
    if (idle < idleMillis) {
      return Verdict.awake("requested " + idle + " ms ago");
    }
    return Verdict.SLEEP;
  }

  /** A decision: {@code sleep}, or stay awake for {@code reason}. */
  public record Verdict(boolean sleep, String reason) {
    public static final Verdict SLEEP = new Verdict(true, "idle");

    static Verdict awake(String reason) {
      return new Verdict(false, reason);
    }
  }
}
