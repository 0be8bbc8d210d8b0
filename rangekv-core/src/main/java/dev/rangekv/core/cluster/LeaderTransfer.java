package dev.rangekv.core.cluster;

import java.util.Objects;

/**
 * Moving a range's leadership to another of its replicas: cheap (no data copy), so the rebalancer uses
 * it before moving data.
 *
 * @param rangeId the range
 * @param fromNode the current leader's node
 * @param toNode a node holding another replica of the range
 * @param why the rule and numbers behind it
 */
public record LeaderTransfer(long rangeId, String fromNode, String toNode, Explanation why) {

  public LeaderTransfer {
    Objects.requireNonNull(fromNode, "fromNode");
    Objects.requireNonNull(toNode, "toNode");
    Objects.requireNonNull(why, "why");
    if (fromNode.equals(toNode)) {
      throw new IllegalArgumentException("leader transfer of range " + rangeId + " to the same node " + toNode);
    }
  }
}
