package dev.rangekv.server.ratis;

import java.io.IOException;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * Makes this node's replica of a freshly opened group (a woken dormant range, a split child) stand for
 * election at once, instead of waiting out its randomized first-election timeout while its peers wait out
 * theirs: that race gave split votes and a second, longer timeout. It hands the local division the
 * {@code StartLeaderElection} request a leader sends in a leadership transfer (Ratis' {@code
 * RaftServerProtocol}); the division checks it as it checks a transfer (a follower, no known leader, a
 * log not behind) and then campaigns without a pre-vote. Raft's vote rules keep it safe: a peer grants
 * only a candidate whose log is at least as up to date. Stateless.
 */
final class Candidacy {
  private Candidacy() {}

  /**
   * Asks {@code groupId}'s division on {@code server} to campaign now; false when it is not a leaderless
   * follower, its term moved past its last entry's (it campaigned already), or Ratis refused.
   */
  static boolean standNow(RaftServer server, RaftGroupId groupId) throws IOException {
    RaftServer.Division division = server.getDivision(groupId);
    DivisionInfo info = division.getInfo();
    if (!info.isFollower() || info.getLeaderId() != null) {
      return false;
    }
    TermIndex last = division.getRaftLog().getLastEntryTermIndex();
    if (last == null) {
      last = TermIndex.valueOf(0, 0); // an empty log: Ratis reads an unset entry as (0, 0)
    }
    if (last.getTerm() != info.getCurrentTerm()) {
      return false; // Ratis would not recognise a requester at an older term than ours
    }
    // The request names another member as its sender (Ratis checks only the group and the terms).
    RaftPeerId sender = server.getId();
    for (RaftPeer p : division.getRaftConf().getCurrentPeers()) {
      if (!p.getId().equals(server.getId())) {
        sender = p.getId();
        break;
      }
    }
    StartLeaderElectionRequestProto request = StartLeaderElectionRequestProto.newBuilder()
        .setServerRequest(ClientProtoUtils.toRaftRpcRequestProtoBuilder(RaftGroupMemberId.valueOf(sender, groupId),
            server.getId()))
        .setLeaderLastEntry(last.toProto())
        .build();
    return server.startLeaderElection(request).getServerReply().getSuccess();
  }
}
