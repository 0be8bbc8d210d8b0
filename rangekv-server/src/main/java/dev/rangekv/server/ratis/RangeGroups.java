package dev.rangekv.server.ratis;

import dev.rangekv.server.consensus.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The deterministic mapping between range ids and Ratis group ids: {@code UUID(TAG, rangeId)}. Range
 * ids are never reused, so group ids are never reused either (Ratis refuses to format over an old
 * group directory).
 */
public final class RangeGroups {
  /** High half of every range group's UUID ("RANGEKV!"), so foreign group dirs are recognised. */
  static final long TAG = 0x52414E47454B5621L;

  private RangeGroups() {}

  public static RaftGroupId groupId(long rangeId) {
    return RaftGroupId.valueOf(new UUID(TAG, rangeId));
  }

  /** The range id of a range group; empty for groups that are not ranges. */
  public static OptionalLong rangeId(RaftGroupId groupId) {
    UUID uuid = groupId.getUuid();
    return uuid.getMostSignificantBits() == TAG
        ? OptionalLong.of(uuid.getLeastSignificantBits())
        : OptionalLong.empty();
  }

  /** The Raft group of {@code rangeId} on {@code members}, peers addressed by their Ratis address. */
  public static RaftGroup group(long rangeId, List<Member> members) {
    List<RaftPeer> peers = new ArrayList<>(members.size());
    for (Member m : members) {
      peers.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(m.nodeId())).setAddress(m.raftAddress()).build());
    }
    return RaftGroup.valueOf(groupId(rangeId), peers);
  }
}
