package dev.rangekv.core.policy;

import java.util.Objects;

/**
 * One node as the meta range knows it.
 *
 * @param nodeId stable node id, as used in {@code RangeDescriptor.replicas()}
 * @param zone failure domain; empty when zones are not configured
 * @param capacityBytes disk capacity of its store; 0 when unknown
 * @param lastHeartbeatMillis when its last heartbeat arrived, on the controller's clock
 */
public record NodeStats(String nodeId, String zone, long capacityBytes, long lastHeartbeatMillis) {

  public NodeStats {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(zone, "zone");
    if (nodeId.isEmpty()) {
      throw new IllegalArgumentException("empty nodeId");
    }
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("negative capacityBytes " + capacityBytes);
    }
  }

  /** A node without a zone. */
  public static NodeStats of(String nodeId, long lastHeartbeatMillis) {
    return new NodeStats(nodeId, "", 0, lastHeartbeatMillis);
  }

  /** Live when its last heartbeat is at most {@code deadTimeoutMillis} old at {@code nowMillis}. */
  public boolean isLive(long nowMillis, long deadTimeoutMillis) {
    return nowMillis - lastHeartbeatMillis <= deadTimeoutMillis;
  }
}
