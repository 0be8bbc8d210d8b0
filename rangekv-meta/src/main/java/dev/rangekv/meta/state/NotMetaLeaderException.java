package dev.rangekv.meta.state;

import java.util.Optional;

/**
 * This node is not the meta range's leader (or not ready to lead yet): the command was not proposed
 * here, or the leader stepped down before it was applied. Carries the leader's node id when known.
 */
public final class NotMetaLeaderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String leaderNodeId;

  public NotMetaLeaderException(Optional<String> leaderNodeId, String message) {
    super(message + leaderNodeId.map(id -> " (meta leader: " + id + ")").orElse(" (meta leader unknown)"));
    this.leaderNodeId = leaderNodeId.orElse("");
  }

  /** The meta leader's node id, when this node knows it. */
  public Optional<String> leaderNodeId() {
    return leaderNodeId.isEmpty() ? Optional.empty() : Optional.of(leaderNodeId);
  }
}
