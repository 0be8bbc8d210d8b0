package dev.rangekv.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.server.consensus.GroupEventHub;
import dev.rangekv.server.consensus.GroupEvents;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RangeStateMachine}'s Ratis notifications as the seam's events: this replica elected is a became,
 * a step-down ("not leader", then the successor's election) one lost, a close while leading a lost, and a
 * configuration entry the voters and previous voters it names.
 */
class RangeStateMachineEventsTest {
  @TempDir Path dir;

  @Test
  void ratisNotifications_becomeTheSeamsEvents() throws Exception {
    try (NodeStore store = NodeStore.open(dir.resolve("store"), StoreOptions.defaults())) {
      List<String> heard = new ArrayList<>();
      GroupEventHub hub = new GroupEventHub();
      hub.add(new GroupEvents() {
        @Override
        public void becameLeader(long rangeId) {
          heard.add("became r" + rangeId);
        }

        @Override
        public void lostLeadership(long rangeId, String leaderHint) {
          heard.add("lost r" + rangeId + " to '" + leaderHint + "'");
        }

        @Override
        public void configurationApplied(long rangeId, List<Member> members, List<Member> previousMembers) {
          heard.add("conf r" + rangeId + " " + members + " previous " + previousMembers);
        }
      });
      RangeStateMachine sm = new RangeStateMachine(new ReplicaDirectory(store).newReplica(7), hub);
      RaftGroupMemberId self = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"), RaftGroupId.randomId());

      sm.notifyLeaderChanged(self, RaftPeerId.valueOf("n1"));
      sm.notifyNotLeader(List.of());
      sm.notifyLeaderChanged(self, RaftPeerId.valueOf("n2")); // the successor: the loss was heard already
      sm.notifyConfigurationChanged(3, 40, RaftConfigurationProto.newBuilder()
          .addPeers(peer("n1")).addPeers(peer("n2")).addPeers(peer("n4"))
          .addOldPeers(peer("n1")).addOldPeers(peer("n2")).addOldPeers(peer("n3")).build());
      sm.notifyLeaderChanged(self, RaftPeerId.valueOf("n1"));
      sm.close();

      assertThat(heard).containsExactly(
          "became r7",
          "lost r7 to ''",
          "conf r7 [Member[nodeId=n1, raftAddress=n1:raft], Member[nodeId=n2, raftAddress=n2:raft], "
              + "Member[nodeId=n4, raftAddress=n4:raft]] previous [Member[nodeId=n1, raftAddress=n1:raft], "
              + "Member[nodeId=n2, raftAddress=n2:raft], Member[nodeId=n3, raftAddress=n3:raft]]",
          "became r7",
          "lost r7 to ''");
    }
  }

  private static RaftPeerProto peer(String id) {
    return RaftPeerProto.newBuilder().setId(ByteString.copyFromUtf8(id)).setAddress(id + ":raft").build();
  }
}
