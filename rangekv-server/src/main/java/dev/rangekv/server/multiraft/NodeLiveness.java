package dev.rangekv.server.multiraft;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this node last heard from each peer node: any envelope counts, and every node sends each peer an
 * envelope at least every {@link #keepAliveMillis()} (empty when it has nothing else to send). A quiesced
 * range's followers take a live leader node for a live leader, in place of the range's own heartbeats,
 * and wake as soon as its node is no longer live (docs/architecture.md, "Multi-raft engine"). Thread-safe.
 */
final class NodeLiveness {
  private final Map<String, Long> lastHeard = new ConcurrentHashMap<>();
  private final long timeoutMillis;

  /** @param timeoutMillis how long a peer may go unheard and still count as live */
  NodeLiveness(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  void heard(String node, long nowMillis) {
    lastHeard.put(node, nowMillis);
  }

  boolean live(String node, long nowMillis) {
    Long t = lastHeard.get(node);
    return t != null && nowMillis - t < timeoutMillis;
  }

  /** How often a node sends each peer an envelope: a quarter of the timeout, so one lost one costs nothing. */
  long keepAliveMillis() {
    return Math.max(1, timeoutMillis / 4);
  }
}
