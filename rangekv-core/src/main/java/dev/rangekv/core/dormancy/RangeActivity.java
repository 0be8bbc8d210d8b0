package dev.rangekv.core.dormancy;

/**
 * What a range's leader knows about the range when asked whether it may go dormant.
 *
 * @param lastRequestMillis when this node last saw a request for the range (or the range woke, or its
 *     leader took over: any moment after which the range must stay awake for the idle period)
 * @param replicas voting replicas of the range, the leader included
 * @param followersCaughtUp followers whose log matches the leader's commit index and that answered
 *     the leader recently (a follower down or behind would miss the dormancy entry)
 * @param frozen the range is frozen for a merge
 * @param operationInFlight proposals pending, a leadership transfer, a replica change, a split or a
 *     wake not yet recorded: anything a closed group would cut short
 * @param leaderReady the leader has committed an entry of its term (its commit index is current)
 * @param requested a client request for the range ever reached this node; false for a split's new child
 *     and for every range after a restart, until its first request
 */
public record RangeActivity(long lastRequestMillis, int replicas, int followersCaughtUp, boolean frozen,
    boolean operationInFlight, boolean leaderReady, boolean requested) {
  public RangeActivity {
    if (replicas < 1 || followersCaughtUp < 0 || followersCaughtUp > replicas - 1) {
      throw new IllegalArgumentException("bad replica counts replicas=" + replicas
          + " followersCaughtUp=" + followersCaughtUp);
    }
  }

  /** Activity of a range a client request reached here. */
  public RangeActivity(long lastRequestMillis, int replicas, int followersCaughtUp, boolean frozen,
      boolean operationInFlight, boolean leaderReady) {
    this(lastRequestMillis, replicas, followersCaughtUp, frozen, operationInFlight, leaderReady, true);
  }
}
