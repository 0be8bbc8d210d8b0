package dev.rangekv.server.multiraft;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
  /** The peers {@link #observe} found live last time (on the one thread that observes). */
  private Set<String> liveBefore = Set.of();
  private final java.util.concurrent.atomic.AtomicLong epoch = new java.util.concurrent.atomic.AtomicLong();

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

  /**
   * Notes which of {@code nodes} are live at {@code nowMillis}: when that set differs from the last call's,
   * the {@link #epoch} moves. Called from one thread, every keep-alive period.
   */
  void observe(Collection<String> nodes, long nowMillis) {
    Set<String> live = new HashSet<>();
    for (String n : nodes) {
      if (live(n, nowMillis)) {
        live.add(n);
      }
    }
    if (!live.equals(liveBefore)) {
      liveBefore = Set.copyOf(live);
      epoch.incrementAndGet();
    }
  }

  /** A number that grows each time {@link #observe} finds another set of live peers; never shrinks. */
  long epoch() {
    return epoch.get();
  }

  /** How often a node sends each peer an envelope: a quarter of the timeout, so one lost one costs nothing. */
  long keepAliveMillis() {
    return Math.max(1, timeoutMillis / 4);
  }
}
