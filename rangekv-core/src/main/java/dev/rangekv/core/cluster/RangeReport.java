package dev.rangekv.core.cluster;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Objects;

/**
 * One replica's line in a node's heartbeat: the range as the reporting node's descriptor has it, what
 * the replica is, and (for a leader) the range's stats over the interval. The meta leader keeps the
 * leaders' lines and turns them into the planner's {@link RangeStats} against its own descriptors.
 *
 * <p>{@code stats.leaderNodeId()} is the leader as the reporter knows it, empty when unknown or when
 * the reporter's descriptor does not list it (a leader on its way out of a replica change): who leads
 * is the reporting node of a {@link Role#LEADER} line, not this field.
 *
 * @param stats the reporter's descriptor and its numbers; all zero unless {@code role} is {@link Role#LEADER}
 * @param role what the reporting replica is
 * @param writeBytesPerSecond bytes of the keys and values its writes carried, per second (leaders only)
 */
public record RangeReport(RangeStats stats, Role role, double writeBytesPerSecond) {

  /** What the reporting replica is. */
  public enum Role {
    /** It leads the range and measured it. */
    LEADER,
    /** It follows; only its descriptor and the leader it knows are reported. */
    FOLLOWER,
    /** Its Raft group is closed (storage kept): no leader, no load, until a request or a wake reopens it. */
    DORMANT
  }

  public RangeReport {
    Objects.requireNonNull(stats, "stats");
    Objects.requireNonNull(role, "role");
    if (!(writeBytesPerSecond >= 0) || Double.isInfinite(writeBytesPerSecond)) {
      throw new IllegalArgumentException("writeBytesPerSecond must be finite and >= 0, got " + writeBytesPerSecond);
    }
  }

  /** A follower's or dormant replica's line: the descriptor and the leader it knows, no numbers. */
  public static RangeReport of(RangeDescriptor range, Role role, String leaderNodeId) {
    return new RangeReport(RangeStats.of(range, 0, 0, leaderNodeId), role, 0);
  }

  /** The reporter's descriptor. */
  public RangeDescriptor range() {
    return stats.range();
  }

  public long rangeId() {
    return stats.rangeId();
  }

  /** The generation of the reporter's descriptor: a higher one is newer news of the range. */
  public long generation() {
    return stats.range().generation();
  }

  /**
   * This line naming {@code nodeId} as the leader (a transfer the controller completed), or naming
   * none when the reporter's descriptor does not list it.
   */
  public RangeReport withLeader(String nodeId) {
    String leader = range().replicas().contains(nodeId) ? nodeId : "";
    return new RangeReport(stats.withLeader(leader), role, writeBytesPerSecond);
  }
}
