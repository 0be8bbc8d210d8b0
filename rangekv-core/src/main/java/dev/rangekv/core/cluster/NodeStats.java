package dev.rangekv.core.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One node as the meta range knows it.
 *
 * @param nodeId stable node id, as used in {@code RangeDescriptor.replicas()}
 * @param zone failure domain; empty when zones are not configured
 * @param capacityBytes disk capacity of its store; 0 when unknown
 * @param lastHeartbeatMillis when its last heartbeat arrived, on the controller's clock
 * @param labels operator labels beyond the zone ({@code region=eu}, {@code disk=ssd}); never a {@code zone} key
 */
public record NodeStats(String nodeId, String zone, long capacityBytes, long lastHeartbeatMillis,
    Map<String, String> labels) {

  public NodeStats {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(zone, "zone");
    labels = Map.copyOf(labels);
    if (labels.containsKey(ZONE_LABEL)) {
      throw new IllegalArgumentException("label " + ZONE_LABEL + " is the node's zone, not a free label");
    }
    if (nodeId.isEmpty()) {
      throw new IllegalArgumentException("empty nodeId");
    }
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("negative capacityBytes " + capacityBytes);
    }
  }

  /** The label key placement rules use for the zone. */
  public static final String ZONE_LABEL = "zone";

  /** A node without labels beyond its zone. */
  public NodeStats(String nodeId, String zone, long capacityBytes, long lastHeartbeatMillis) {
    this(nodeId, zone, capacityBytes, lastHeartbeatMillis, Map.of());
  }

  /** Its labels with the zone as {@code zone=...} (absent when it has none): what placement rules match. */
  public Map<String, String> allLabels() {
    if (zone.isEmpty()) {
      return labels;
    }
    Map<String, String> out = new HashMap<>(labels);
    out.put(ZONE_LABEL, zone);
    return out;
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
