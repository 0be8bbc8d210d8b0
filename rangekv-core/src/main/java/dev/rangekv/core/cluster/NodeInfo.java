package dev.rangekv.core.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A node as the meta range records it: who it is, where to reach it, where it stands (zone, labels,
 * capacity), and a summary of its last heartbeat. The controller's policies see the smaller {@link
 * NodeStats}.
 *
 * @param nodeId stable node id, as used in {@code RangeDescriptor.replicas()}
 * @param addresses where to reach it
 * @param zone failure domain; empty when zones are not configured
 * @param labels operator labels beyond the zone ({@code region=eu}, {@code disk=ssd}), in the order the node
 *     gave them
 * @param capacityBytes disk capacity of its store; 0 when unknown
 * @param heartbeat when its last heartbeat (or registration) was applied, and what it said
 */
public record NodeInfo(String nodeId, Addresses addresses, String zone, Map<String, String> labels,
    long capacityBytes, Heartbeat heartbeat) {

  public NodeInfo {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(addresses, "addresses");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(heartbeat, "heartbeat");
    // insertion order kept: the node's own order is what the meta API answers with
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
  }

  /**
   * Where a node listens; each {@code host:port}, empty when unknown or absent.
   *
   * @param client the client gRPC address (also the node-to-node and admin address)
   * @param raft the address its Raft peers reach it at
   * @param http the HTTP address (metrics, health, console); empty when it has none
   */
  public record Addresses(String client, String raft, String http) {
    public static final Addresses NONE = new Addresses("", "", "");

    public Addresses {
      Objects.requireNonNull(client, "client");
      Objects.requireNonNull(raft, "raft");
      Objects.requireNonNull(http, "http");
    }
  }

  /**
   * A node's last heartbeat as the meta range applied it.
   *
   * @param atMillis the meta leader's wall clock when it (or the registration) was applied
   * @param replicaCount replicas it hosts
   * @param leaderCount of them, the ones it leads
   * @param dormantCount of them, the dormant ones (group closed, storage kept)
   * @param bytes sum of the bytes of the ranges it leads
   * @param qps sum of the qps of the ranges it leads
   */
  public record Heartbeat(long atMillis, int replicaCount, int leaderCount, int dormantCount, long bytes,
      double qps) {
    /** No heartbeat summary yet. */
    public static Heartbeat at(long atMillis) {
      return new Heartbeat(atMillis, 0, 0, 0, 0, 0);
    }

    public Heartbeat withAtMillis(long newAtMillis) {
      return new Heartbeat(newAtMillis, replicaCount, leaderCount, dormantCount, bytes, qps);
    }
  }

  /** The client gRPC address. */
  public String address() {
    return addresses.client();
  }

  public String raftAddress() {
    return addresses.raft();
  }

  public String httpAddress() {
    return addresses.http();
  }

  public long lastHeartbeatMillis() {
    return heartbeat.atMillis();
  }

  public NodeInfo withHeartbeat(Heartbeat newHeartbeat) {
    return new NodeInfo(nodeId, addresses, zone, labels, capacityBytes, newHeartbeat);
  }

  /** As the policies see it; a {@code zone} label (only the zone field counts) is dropped. */
  public NodeStats stats() {
    Map<String, String> free = new LinkedHashMap<>(labels);
    free.remove(NodeStats.ZONE_LABEL);
    return new NodeStats(nodeId, zone, capacityBytes, heartbeat.atMillis(), free);
  }
}
