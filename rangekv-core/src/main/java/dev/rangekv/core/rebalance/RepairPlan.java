package dev.rangekv.core.rebalance;

import dev.rangekv.core.policy.Explanation;
import dev.rangekv.core.policy.Move;
import java.util.List;
import java.util.Objects;

/**
 * What repair wants done this tick.
 *
 * @param moves re-creations of replicas lost on dead nodes (from the dead node) or missing (pure adds)
 * @param blocked ranges that need repair but cannot get it now, with why (quorum lost, no target)
 * @param why the overall state
 */
public record RepairPlan(List<Move> moves, List<Blocked> blocked, Explanation why) {

  public RepairPlan {
    moves = List.copyOf(moves);
    blocked = List.copyOf(blocked);
    Objects.requireNonNull(why, "why");
  }

  /** A range repair cannot help this tick. */
  public record Blocked(long rangeId, Explanation why) {
    public Blocked {
      Objects.requireNonNull(why, "why");
    }
  }
}
