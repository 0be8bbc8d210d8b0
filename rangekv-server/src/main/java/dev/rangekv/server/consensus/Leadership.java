package dev.rangekv.server.consensus;

/**
 * What this node's replica of a range believes about its group's leader, read cheaply on every request.
 *
 * @param leader this replica leads
 * @param ready it leads and has committed an entry of its term (it may change membership and serve)
 * @param leaderId the leader's node id; empty when no leader is known
 */
public record Leadership(boolean leader, boolean ready, String leaderId) {
  public Leadership {
    if (leaderId == null) {
      throw new IllegalArgumentException("leaderId is empty when unknown, never null");
    }
  }
}
