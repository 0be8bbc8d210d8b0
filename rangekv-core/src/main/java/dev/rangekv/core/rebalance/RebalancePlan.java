package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.Move;
import java.util.List;
import java.util.Objects;

/**
 * What the rebalancer wants done this tick.
 *
 * @param moves replica moves, at most the free move budget
 * @param leaderTransfers leadership transfers, at most {@code rebalance.max-leader-transfers}
 * @param why the overall state: balanced, budget exhausted, or what was out of tolerance
 */
public record RebalancePlan(List<Move> moves, List<LeaderTransfer> leaderTransfers, Explanation why) {

  public RebalancePlan {
    moves = List.copyOf(moves);
    leaderTransfers = List.copyOf(leaderTransfers);
    Objects.requireNonNull(why, "why");
  }

  public boolean isEmpty() {
    return moves.isEmpty() && leaderTransfers.isEmpty();
  }
}
