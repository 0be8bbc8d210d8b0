package dev.rangekv.meta.ratis;

import java.util.List;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The meta range's Ratis group: one fixed group id on every cluster, distinct from every range group
 * (whose UUIDs carry the high half {@code "RANGEKV!"}), so a node tells its meta replica apart from
 * its range replicas by group id alone.
 */
public final class MetaGroups {
  /** High half of the meta group's UUID: "RANGKMET". */
  static final long TAG = 0x52414E474B4D4554L;

  /** The meta range's group id: {@code UUID("RANGKMET", 0)}. */
  public static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(new UUID(TAG, 0));

  private MetaGroups() {}

  /** True for the meta group's id. */
  public static boolean isMeta(RaftGroupId groupId) {
    return GROUP_ID.equals(groupId);
  }

  /** The meta group on {@code peers} (the first up to 3 nodes). */
  public static RaftGroup group(List<RaftPeer> peers) {
    return RaftGroup.valueOf(GROUP_ID, peers);
  }

  /** A meta peer: Ratis peer id = node id, addressed by the node's Ratis host:port. */
  public static RaftPeer peer(String nodeId, String raftAddress) {
    return RaftPeer.newBuilder().setId(RaftPeerId.valueOf(nodeId)).setAddress(raftAddress).build();
  }
}
