package dev.rangekv.server.consensus;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of this node's replica of one range group, as its engine sees it (for decisions such as
 * dormancy and merges, and for status pages). Immutable.
 *
 * @param leadership who leads, as this replica believes
 * @param follower this replica is a follower (not a candidate, not the leader)
 * @param currentTerm this replica's term
 * @param appliedIndex the last index applied here
 * @param commitIndex the last index known committed here
 * @param lastEntry the term and index of the last entry of the log here ((0, 0) when it is empty)
 * @param members the voters of the current configuration
 * @param previousMembers the voters of the configuration being left while a change runs: a joint change's old
 *     voters, or, on the leader of an engine that changes one member at a time, the voters before its first
 *     step until its last step ended; empty otherwise
 * @param hasNonVoters some member of the configuration does not vote
 * @param followerMatchIndices on the leader: each follower's highest replicated index
 * @param followerSilenceMillis on the leader: per follower node id, milliseconds since it last answered
 * @param commitIndexByNode on the leader: each member's commit index as last reported (itself included)
 * @param closed the engine closed this replica on its own (it answers nothing until opened again)
 */
public record GroupStatus(Leadership leadership, boolean follower, long currentTerm, long appliedIndex,
    long commitIndex, LogPosition lastEntry, List<Member> members, List<Member> previousMembers,
    boolean hasNonVoters, List<Long> followerMatchIndices, Map<String, Long> followerSilenceMillis,
    Map<String, Long> commitIndexByNode, boolean closed) {
  public GroupStatus {
    members = List.copyOf(members);
    previousMembers = List.copyOf(previousMembers);
    followerMatchIndices = List.copyOf(followerMatchIndices);
    followerSilenceMillis = Map.copyOf(followerSilenceMillis);
    commitIndexByNode = Map.copyOf(commitIndexByNode);
  }

  /** The term and index of a log entry. */
  public record LogPosition(long term, long index) {}

  /** A configuration change is under way (joint, or one member at a time on its leader). */
  public boolean changing() {
    return !previousMembers.isEmpty();
  }

  /** The node ids of the current voters, in configuration order. */
  public List<String> memberIds() {
    return members.stream().map(Member::nodeId).toList();
  }
}
