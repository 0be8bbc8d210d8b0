package dev.rangekv.server.consensus;

import dev.rangekv.proto.replica.RaftReplica;
import java.util.List;

/** A voting member of a range group: a node and the address its engine peers reach it at. */
public record Member(String nodeId, String raftAddress) {
  public Member {
    if (nodeId == null || nodeId.isEmpty() || raftAddress == null) {
      throw new IllegalArgumentException("a member needs a node id and an address: " + nodeId + "@" + raftAddress);
    }
  }

  /** The member a recorded replica is. */
  public static Member of(RaftReplica r) {
    return new Member(r.getNodeId(), r.getRaftAddress());
  }

  /** The members recorded replicas are, in order. */
  public static List<Member> of(List<RaftReplica> replicas) {
    return replicas.stream().map(Member::of).toList();
  }
}
