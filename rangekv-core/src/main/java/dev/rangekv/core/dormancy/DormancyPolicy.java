package dev.rangekv.core.dormancy;

/**
 * Decides whether an idle range goes dormant: only when dormancy is on, its leader is ready, nothing
 * is in flight, it is not frozen, every follower is up and caught up (so every replica applies the
 * dormancy entry and none has to be repaired while closed), and no request arrived for
 * {@code idleMillis}. CockroachDB's quiescence asks the same of a range before it stops ticking.
 *
 * <p>A range no request has reached on its leader's node ({@link RangeActivity#requested}: a split's
 * new child, every range after a restart) idles only {@code freshIdleMillis}: a pre-split into a
 * thousand ranges otherwise kept every child's group awake for the whole idle period, and that many
 * awake groups starved the node (BENCHMARKS.md, "Pre-split into 1,000 ranges right after a start").
 * Pure and immutable.
 *
 * @param idleMillis how long a range must go without requests; 0 turns dormancy off
 * @param freshIdleMillis how long a range that was never requested here idles, at most {@code idleMillis}
 */
public record DormancyPolicy(long idleMillis, long freshIdleMillis) {
  /** Ranges go dormant after 60 s without requests. */
  public static final long DEFAULT_IDLE_MILLIS = 60_000;
  /** A range never requested on its leader's node goes dormant after 10 s. */
  public static final long DEFAULT_FRESH_IDLE_MILLIS = 10_000;

  public DormancyPolicy {
    if (idleMillis < 0) {
      throw new IllegalArgumentException("idleMillis must be >= 0 (0 = never dormant), got " + idleMillis);
    }
    if (freshIdleMillis < 0 || freshIdleMillis > idleMillis) {
      throw new IllegalArgumentException("freshIdleMillis must be in [0, idleMillis=" + idleMillis + "], got "
          + freshIdleMillis);
    }
  }

  /** Idle for {@code idleMillis}, or {@link #DEFAULT_FRESH_IDLE_MILLIS} (when shorter) if never requested. */
  public DormancyPolicy(long idleMillis) {
    this(idleMillis, Math.min(idleMillis, DEFAULT_FRESH_IDLE_MILLIS));
  }

  /** Dormancy off: ranges never go dormant. */
  public static DormancyPolicy off() {
    return new DormancyPolicy(0);
  }

  public boolean enabled() {
    return idleMillis > 0;
  }

  /**
   * Whether a split's new child is born dormant (no replica opens its group until something wakes it)
   * when its split {@code asked} for it (a pre-split's splits do): only while dormancy is on, since with
   * dormancy off no range is ever dormant, and a born-dormant child would pay a wake on its first request.
   */
  public boolean childBornDormant(boolean asked) {
    return asked && enabled();
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
    if (idle < (a.requested() ? idleMillis : freshIdleMillis)) {
      return Verdict.awake("requested " + idle + " ms ago");
    }
    return Verdict.SLEEP;
  }

  /**
   * From when {@link #decide} says sleep for this activity if nothing but the clock moves: the moment its
   * idle period ends (or the activity's time, when it ended already); empty when dormancy is off or
   * something other than time keeps the range awake (its leader not ready, an operation in flight, frozen,
   * a follower down or behind). Lets a caller leave a range alone until then while nothing happens to it.
   */
  public java.util.OptionalLong sleepsFrom(RangeActivity a) {
    if (!enabled() || !a.leaderReady() || a.operationInFlight() || a.frozen()
        || a.followersCaughtUp() < a.replicas() - 1) {
      return java.util.OptionalLong.empty();
    }
    long idle = a.requested() ? idleMillis : freshIdleMillis;
    long from = a.lastRequestMillis() > Long.MAX_VALUE - idle ? Long.MAX_VALUE : a.lastRequestMillis() + idle;
    return java.util.OptionalLong.of(from);
  }

  /** A decision: {@code sleep}, or stay awake for {@code reason}. */
  public record Verdict(boolean sleep, String reason) {
    public static final Verdict SLEEP = new Verdict(true, "idle");

    static Verdict awake(String reason) {
      return new Verdict(false, reason);
    }
  }
}
