package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import java.util.List;
import java.util.Objects;

/**
 * What repair wants done this tick.
 *
 * @param moves re-creations of replicas lost on dead nodes (from the dead node) or missing (pure adds)
 * @param removals replicas to drop without a replacement: on a dead node when the live ones already
 *     reach the target, or extra live ones (e.g. left by a move that failed after its add)
 * @param blocked ranges that need repair but cannot get it now, with why (quorum lost, no target)
 * @param why the overall state
 */
public record RepairPlan(List<Move> moves, List<Removal> removals, List<Blocked> blocked, Explanation why) {

  public RepairPlan {
    moves = List.copyOf(moves);
    removals = List.copyOf(removals);
    blocked = List.copyOf(blocked);
    Objects.requireNonNull(why, "why");
  }

  /** A plan without removals. */
  public RepairPlan(List<Move> moves, List<Blocked> blocked, Explanation why) {
    this(moves, List.of(), blocked, why);
  }

  /** Dropping the replica of {@code rangeId} on {@code nodeId}; never the range's leader. */
  public record Removal(long rangeId, String nodeId, Explanation why) {
    public Removal {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(why, "why");
    }
  }

  /** A range repair cannot help this tick. */
  public record Blocked(long rangeId, Explanation why) {
    public Blocked {
      Objects.requireNonNull(why, "why");
    }
  }
}
