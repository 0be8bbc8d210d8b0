package dev.rangekv.core.cluster;

import java.util.Objects;
import java.util.Optional;

/**
 * Moving one replica of a range: the replica on {@code fromNode} gives way to one on {@code toNode}
 * (executed as one joint-consensus replace for ranges of 3 or more replicas, else add then remove; see
 * {@code OperatorPlanner.moveSteps}). Without {@code fromNode} it only adds a replica (up-replication).
 * When the leaving replica leads, the executor moves the leadership off it first.
 *
 * @param rangeId the range whose replica moves
 * @param fromNode the node giving up its replica; empty for a pure addition
 * @param toNode the node receiving a replica; never one that already holds the range
 * @param why the rule and numbers behind the move
 */
public record Move(long rangeId, Optional<String> fromNode, String toNode, Explanation why) {

  public Move {
    Objects.requireNonNull(fromNode, "fromNode");
    Objects.requireNonNull(toNode, "toNode");
    Objects.requireNonNull(why, "why");
    if (fromNode.isPresent() && fromNode.get().equals(toNode)) {
      throw new IllegalArgumentException("move of range " + rangeId + " from and to the same node " + toNode);
    }
  }

  public static Move of(long rangeId, String fromNode, String toNode, Explanation why) {
    return new Move(rangeId, Optional.of(fromNode), toNode, why);
  }

  public static Move add(long rangeId, String toNode, Explanation why) {
    return new Move(rangeId, Optional.empty(), toNode, why);
  }

  @Override
  public String toString() {
    return "move r" + rangeId + " " + fromNode.orElse("+") + "->" + toNode + ": " + why;
  }
}
