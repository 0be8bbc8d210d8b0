package dev.rangekv.meta.state;

import dev.rangekv.meta.ratis.MetaGroups;
import static dev.rangekv.meta.state.MetaStateTest.bootstrap;
import static dev.rangekv.meta.state.MetaStateTest.events;
import static dev.rangekv.meta.state.MetaStateTest.range;
import static dev.rangekv.meta.state.MetaStateTest.report;
import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.rangemap.RangeIdBlock;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaSnapshot;
import dev.rangekv.proto.meta.NodeHeartbeat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.storage.RaftStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The meta state machine on real Ratis servers on loopback: proposals, snapshots, restart, replicas. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetaStateMachineIT {
  @TempDir Path dir;

  private static MetaView propose(MetaTestServer s, MetaCommand cmd) throws Exception {
    return s.group.propose(cmd).get(10, TimeUnit.SECONDS);
  }

  private static List<MetaCommand> script() {
    return List.of(
        bootstrap(10, range(1, "", null, 1)),
        MetaCommand.newBuilder().setAtMillis(20)
            .setRegisterNode(NodeRecord.newBuilder().setNodeId("n2").setAddress("127.0.0.1:2").setZone("z")).build(),
        MetaCommand.newBuilder().setAtMillis(30).setHeartbeat(NodeHeartbeat.newBuilder()
            .setNode(NodeRecord.newBuilder().setNodeId("n2").setReplicaCount(1))
            .addRanges(range(2, "m", null, 2))).build(),
        report(40, range(1, "", "m", 2)),
        events(50, EventProto.newBuilder().setKind("split").addRangeIds(1).addRangeIds(2).build()));
  }

  @Test
  void singlePeer_appliesProposals_snapshots_andRestoresAfterRestart() throws Exception {
    int port = MetaTestServer.freePort();
    RaftGroup group = MetaGroups.group(List.of(MetaGroups.peer("n1", "127.0.0.1:" + port)));
    MetaSnapshot before;
    long snapshotIndex;
    try (MetaTestServer s = new MetaTestServer("n1", port, dir, Optional.of(group))) {
      MetaTestServer.await(s.group::isLeader, "n1 to lead the meta group");
      assertThat(s.group.leaderNodeId()).contains("n1");
      MetaView view = null;
      for (MetaCommand cmd : script()) {
        view = propose(s, cmd);
      }
      assertThat(wire(view).ranges()).containsExactly(range(1, "", "m", 2), range(2, "m", null, 2));
      assertThat(view.mapVersion()).isEqualTo(3);
      assertThat(view.nodes()).extracting(NodeInfo::nodeId).containsExactly("n1", "n2");
      assertThat(view.events(0, 0, 2)).extracting(Event::seq).containsExactly(1L);

      assertThatThrownBy(() -> propose(s, report(60, range(3, "z", "a", 9))))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(MalformedMetaCommandException.class);
      // ranges 1 and 2 are in use: grants start at 3; each proposer learns its own block from its entry
      assertThat(s.group.allocateRangeIds(3).get(10, TimeUnit.SECONDS)).isEqualTo(new RangeIdBlock(3, 3));

      RaftClientReply reply = s.server.snapshotManagement(SnapshotManagementRequest.newCreate(
          ClientId.randomId(), s.server.getId(), MetaGroups.GROUP_ID, 1, 10_000, 1));
      assertThat(reply.isSuccess()).isTrue();
      snapshotIndex = reply.getLogIndex();
      assertThat(snapshotIndex).isPositive();
      view = propose(s, events(70, EventProto.newBuilder().setKind("move").addRangeIds(2).build()));
      assertThat(view.events(0, 0, 0)).hasSize(2);
      assertThat(s.group.allocateRangeIds(2).get(10, TimeUnit.SECONDS)).isEqualTo(new RangeIdBlock(6, 2));
      before = s.stateMachine.state().toSnapshot();
    }

    try (MetaTestServer s = new MetaTestServer("n1", port, dir, Optional.empty())) {
      assertThat(s.stateMachine.getLatestSnapshot().getIndex()).isEqualTo(snapshotIndex);
      MetaTestServer.await(s.group::isLeader, "n1 to lead again");
      MetaTestServer.await(() -> s.stateMachine.state().toSnapshot().equals(before), "the state to be restored");
      MetaView view = propose(s, events(80, EventProto.newBuilder().setKind("merge").build()));
      assertThat(view.events(0, 0, 0)).extracting(Event::seq).containsExactly(1L, 2L, 3L);
      // the grants before the snapshot and after it (replayed from the log) are never granted again
      assertThat(s.group.allocateRangeIds(1).get(10, TimeUnit.SECONDS)).isEqualTo(new RangeIdBlock(8, 1));
    }
  }

  @Test
  void threePeers_followersRefuseToPropose_replicate_andOneBehindThePurgedLogFetchesTheLeadersState()
      throws Exception {
    List<RaftPeer> peers = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int port = MetaTestServer.freePort();
      ports.add(port);
      peers.add(MetaGroups.peer("n" + i, "127.0.0.1:" + port));
    }
    RaftGroup group = MetaGroups.group(peers);
    List<MetaTestServer> servers = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        servers.add(new MetaTestServer("n" + (i + 1), ports.get(i), dir.resolve("n" + (i + 1)), Optional.of(group),
            RaftStorage.StartupOption.FORMAT, true));
      }
      MetaTestServer.await(() -> servers.stream().filter(s -> s.group.isLeader()).count() == 1, "one meta leader");
      MetaTestServer leader = servers.stream().filter(s -> s.group.isLeader()).findFirst().orElseThrow();
      int f = servers.indexOf(servers.stream().filter(s -> s != leader).findFirst().orElseThrow());
      MetaTestServer.await(() -> servers.get(f).group.leaderNodeId().isPresent(), "the follower to know the leader");
      assertThatThrownBy(() -> propose(servers.get(f), script().get(0)))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(NotMetaLeaderException.class,
              e -> assertThat(e.leaderNodeId()).contains(leader.nodeId));
      for (MetaCommand cmd : script()) {
        propose(leader, cmd);
      }
      MetaSnapshot early = leader.stateMachine.state().toSnapshot();
      for (MetaTestServer s : servers) {
        MetaTestServer.await(() -> s.stateMachine.state().toSnapshot().equals(early), s.nodeId + " to converge");
      }
      long followerIndex = servers.get(f).stateMachine.getLastAppliedTermIndex().getIndex();
      servers.get(f).close();

      String detail = "x".repeat(1024);
      for (int i = 0; i < 60; i++) {
        propose(leader, events(100 + i, EventProto.newBuilder().setKind("move").addRangeIds(2).setDetail(detail).build()));
      }
      RaftClientReply reply = leader.server.snapshotManagement(SnapshotManagementRequest.newCreate(
          ClientId.randomId(), leader.server.getId(), MetaGroups.GROUP_ID, 1, 10_000, 1));
      assertThat(reply.isSuccess()).isTrue();
      MetaTestServer.await(() -> startIndex(leader) > followerIndex + 1, "the leader to purge past the follower");

      MetaTestServer back = new MetaTestServer("n" + (f + 1), ports.get(f), dir.resolve("n" + (f + 1)), Optional.of(group),
          RaftStorage.StartupOption.RECOVER, true);
      servers.set(f, back);
      MetaSnapshot want = leader.stateMachine.state().toSnapshot();
      MetaTestServer.await(() -> back.stateMachine.state().toSnapshot().equals(want), "the follower to fetch the state");
      propose(leader, events(500, EventProto.newBuilder().setKind("merge").build()));
      MetaSnapshot after = leader.stateMachine.state().toSnapshot();
      MetaTestServer.await(() -> back.stateMachine.state().toSnapshot().equals(after), "the follower to apply again");
    } finally {
      for (MetaTestServer s : servers) {
        s.close();
      }
    }
  }

  private static long startIndex(MetaTestServer s) {
    try {
      return s.server.getDivision(MetaGroups.GROUP_ID).getRaftLog().getStartIndex();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
