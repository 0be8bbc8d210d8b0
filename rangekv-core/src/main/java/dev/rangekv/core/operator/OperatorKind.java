package dev.rangekv.core.operator;

/**
 * What an operator is for, in priority order (lower first): repairs put data back at its replication
 * factor and go before anything else, admin calls next, then placement, splits, merges and balancing.
 * Each kind names the event logged when one finishes.
 */
public enum OperatorKind {
  /** Re-create a replica lost on a dead node, add a missing one, or drop a surplus one. */
  REPAIR("repair"),
  /** Asked for by an operator through the admin API (split, merge, move, pre-split). */
  ADMIN_SPLIT("split"),
  ADMIN_MERGE("merge"),
  ADMIN_MOVE("move"),
  /** Move a replica where a placement rule wants it. */
  PLACEMENT("move"),
  /** Move leadership where a placement rule wants it. */
  PLACEMENT_LEADER("leader-transfer"),
  /** Split for size, load, appends or at a rule boundary. */
  SPLIT("split"),
  /** Merge two co-located neighbours. */
  MERGE("merge"),
  /** Move a replica of a merge's right range onto the left's nodes. */
  COLOCATE("move"),
  /** Move a replica to even out bytes, replicas or load. */
  REBALANCE("move"),
  /** Move leadership to even out leaders or load. */
  REBALANCE_LEADER("leader-transfer");

  private final String eventKind;

  OperatorKind(String eventKind) {
    this.eventKind = eventKind;
  }

  /** The event kind logged when an operator of this kind finishes ("split", "move", ...). */
  public String eventKind() {
    return eventKind;
  }

  /** Whether operators of this kind were asked for by a person rather than planned. */
  public boolean isAdmin() {
    return this == ADMIN_SPLIT || this == ADMIN_MERGE || this == ADMIN_MOVE;
  }
}
