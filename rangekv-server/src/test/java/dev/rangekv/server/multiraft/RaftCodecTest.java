package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.multiraft.RaftMsg;
import dev.rangekv.proto.replica.RangeCommand;
import io.microraft.MembershipChangeMode;
import io.microraft.model.log.LogEntry;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.RaftMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every MicroRaft message kind and log operation the engine sends survives the wire format unchanged. */
class RaftCodecTest {
  private static final NodeEndpoint N1 = new NodeEndpoint("n1");
  private static final NodeEndpoint N2 = new NodeEndpoint("n2");
  /** A replica added to n3 in term 4 on the membership committed at index 17 (n3 being an initial member too). */
  private static final NodeEndpoint N3_AGAIN = new NodeEndpoint("n3", 4, 17);

  private static RaftMsg roundTrip(RaftMessage m) {
    RaftMsg wire = RaftCodec.encode(m, N3_AGAIN, List.of("n1", "n2", "n3"));
    RaftMessage back = RaftCodec.decode(wire);
    assertThat(back.getClass()).isEqualTo(m.getClass());
    assertThat(RaftCodec.encode(back, N3_AGAIN, List.of("n1", "n2", "n3"))).isEqualTo(wire);
    return wire;
  }

  @Test
  void aReplicaIncarnation_isItsNodeAndAdd_onTheWire_andAnInitialMemberStaysItsNodeId() {
    assertThat(N3_AGAIN.wire()).isEqualTo("n3#4.17");
    assertThat(NodeEndpoint.parse("n3#4.17")).isEqualTo(N3_AGAIN).isNotEqualTo(new NodeEndpoint("n3"));
    assertThat(NodeEndpoint.parse("n-3.a_b")).isEqualTo(new NodeEndpoint("n-3.a_b"));
    assertThat(new NodeEndpoint("n3").wire()).isEqualTo("n3");
    assertThat(NodeEndpoint.idOf(N3_AGAIN)).isEqualTo("n3");
    // a later term wins over a higher membership index: an add lost with its term's leader is earlier
    assertThat(new NodeEndpoint("n3", 5, 2).laterThan(N3_AGAIN)).isTrue();
    assertThat(new NodeEndpoint("n3", 4, 18).laterThan(N3_AGAIN)).isTrue();
    assertThat(N3_AGAIN.laterThan(N3_AGAIN)).isFalse();
    assertThat(new NodeEndpoint("n3").laterThan(N3_AGAIN)).isFalse();

    RaftMsg wire = roundTrip(RaftCodec.MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId(1L)
        .setSender(N3_AGAIN).setTerm(3).setLastLogIndex(10).setQuerySequenceNumber(1).setFlowControlSequenceNumber(2)
        .build());
    assertThat(wire.getSender()).isEqualTo("n3#4.17");
    assertThat(wire.getTarget()).isEqualTo("n3#4.17");
    assertThat(RaftCodec.decode(wire).getSender()).isEqualTo(N3_AGAIN);
    Object op = RaftCodec.operation(RaftCodec.op(RaftCodec.MODEL.createUpdateRaftGroupMembersOpBuilder()
        .setMembers(List.of(N1, N2, N3_AGAIN)).setVotingMembers(List.of(N1, N2)).setEndpoint(N3_AGAIN)
        .setMode(MembershipChangeMode.ADD_LEARNER).build()));
    assertThat(((io.microraft.model.groupop.UpdateRaftGroupMembersOp) op).getMembers()).containsExactly(N1, N2, N3_AGAIN);
    assertThat(((io.microraft.model.groupop.UpdateRaftGroupMembersOp) op).getEndpoint()).isEqualTo(N3_AGAIN);
  }

  @Test
  void appendRequest_withEveryKindOfEntry_roundTrips() {
    RangeCommand cmd = RangeCommand.newBuilder().setWriteId(dev.rangekv.proto.WriteId.newBuilder()
        .setClientId(ByteString.copyFromUtf8("c")).setRequestId(7)).build();
    List<LogEntry> entries = List.of(
        RaftCodec.MODEL.createLogEntryBuilder().setIndex(5).setTerm(2).setOperation(RaftCodec.NewTerm.INSTANCE).build(),
        RaftCodec.MODEL.createLogEntryBuilder().setIndex(6).setTerm(2).setOperation(cmd).build(),
        RaftCodec.MODEL.createLogEntryBuilder().setIndex(7).setTerm(2).setOperation(
            RaftCodec.MODEL.createUpdateRaftGroupMembersOpBuilder().setMembers(List.of(N1, N2))
                .setVotingMembers(List.of(N1)).setEndpoint(N2).setMode(MembershipChangeMode.ADD_LEARNER).build())
            .build());
    AppendEntriesRequest m = RaftCodec.MODEL.createAppendEntriesRequestBuilder().setGroupId(42L).setSender(N1)
        .setTerm(2).setPreviousLogTerm(1).setPreviousLogIndex(4).setCommitIndex(3).setLogEntries(entries)
        .setQuerySequenceNumber(9).setFlowControlSequenceNumber(11).build();
    RaftMsg wire = roundTrip(m);
    assertThat(wire.getInitialMembersList()).containsExactly("n1", "n2", "n3");
    AppendEntriesRequest back = (AppendEntriesRequest) RaftCodec.decode(wire);
    assertThat(back.getGroupId()).isEqualTo(42L);
    assertThat(back.getLogEntries().get(1).getOperation()).isEqualTo(cmd);
    assertThat(back.getLogEntries().get(0).getOperation()).isEqualTo(RaftCodec.NewTerm.INSTANCE);
  }

  @Test
  void repliesVotesAndSnapshots_roundTrip() {
    roundTrip(RaftCodec.MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId(1L).setSender(N2).setTerm(3)
        .setLastLogIndex(10).setQuerySequenceNumber(1).setFlowControlSequenceNumber(2).build());
    roundTrip(RaftCodec.MODEL.createAppendEntriesFailureResponseBuilder().setGroupId(1L).setSender(N2).setTerm(3)
        .setExpectedNextIndex(4).setQuerySequenceNumber(1).setFlowControlSequenceNumber(2).build());
    roundTrip(RaftCodec.MODEL.createPreVoteRequestBuilder().setGroupId(1L).setSender(N2).setTerm(4)
        .setLastLogTerm(3).setLastLogIndex(10).build());
    roundTrip(RaftCodec.MODEL.createPreVoteResponseBuilder().setGroupId(1L).setSender(N1).setTerm(4).setGranted(true)
        .build());
    roundTrip(RaftCodec.MODEL.createVoteRequestBuilder().setGroupId(1L).setSender(N2).setTerm(4).setLastLogTerm(3)
        .setLastLogIndex(10).setSticky(true).build());
    roundTrip(RaftCodec.MODEL.createVoteResponseBuilder().setGroupId(1L).setSender(N1).setTerm(4).setGranted(false)
        .build());
    roundTrip(RaftCodec.MODEL.createTriggerLeaderElectionRequestBuilder().setGroupId(1L).setSender(N1).setTerm(4)
        .setLastLogTerm(3).setLastLogIndex(10).build());
    roundTrip(RaftCodec.MODEL.createInstallSnapshotResponseBuilder().setGroupId(1L).setSender(N2).setTerm(4)
        .setSnapshotIndex(100).setRequestedSnapshotChunkIndex(0).setQuerySequenceNumber(1)
        .setFlowControlSequenceNumber(2).build());
    var members = RaftCodec.MODEL.createRaftGroupMembersViewBuilder().setLogIndex(7).setMembers(List.of(N1, N2))
        .setVotingMembers(List.of(N1, N2)).build();
    InstallSnapshotRequest snapshot = RaftCodec.MODEL.createInstallSnapshotRequestBuilder().setGroupId(1L)
        .setSender(N1).setTerm(4).setSenderLeader(true).setSnapshotTerm(3).setSnapshotIndex(100)
        .setTotalSnapshotChunkCount(1).setSnapshotChunk(RaftCodec.MODEL.createSnapshotChunkBuilder().setIndex(100)
            .setTerm(3).setOperation(RaftCodec.StoreMarker.INSTANCE).setSnapshotChunkIndex(0)
            .setSnapshotChunkCount(1).setGroupMembersView(members).build())
        .setSnapshottedMembers(List.of(N1)).setGroupMembersView(members).setQuerySequenceNumber(1)
        .setFlowControlSequenceNumber(2).build();
    InstallSnapshotRequest back = (InstallSnapshotRequest) RaftCodec.decode(roundTrip(snapshot));
    assertThat(back.getSnapshotChunk().getOperation()).isEqualTo(RaftCodec.StoreMarker.INSTANCE);
    assertThat(RaftCodec.ids(back.getGroupMembersView().getMembers())).containsExactly("n1", "n2");
  }

  @Test
  void appendRequest_overTheByteBudget_carriesAPrefixOfItsEntries_andAtLeastOne() {
    // 1 MiB entries, as large writes make them: 12 of them would be over the 8 MiB a peer accepts
    RangeCommand big = RangeCommand.newBuilder().setWriteId(dev.rangekv.proto.WriteId.newBuilder()
        .setClientId(ByteString.copyFrom(new byte[1 << 20])).setRequestId(1)).build();
    List<LogEntry> entries = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      entries.add(RaftCodec.MODEL.createLogEntryBuilder().setIndex(5 + i).setTerm(2).setOperation(big).build());
    }
    AppendEntriesRequest m = RaftCodec.MODEL.createAppendEntriesRequestBuilder().setGroupId(42L).setSender(N1)
        .setTerm(2).setPreviousLogTerm(1).setPreviousLogIndex(4).setCommitIndex(3).setLogEntries(entries)
        .setQuerySequenceNumber(9).setFlowControlSequenceNumber(11).build();
    RaftMsg wire = RaftCodec.encode(m, N2, List.of("n1", "n2", "n3"));
    assertThat(wire.getSerializedSize()).isLessThan(8 << 20);
    AppendEntriesRequest back = (AppendEntriesRequest) RaftCodec.decode(wire);
    assertThat(back.getLogEntries()).hasSizeBetween(1, 11);
    assertThat(back.getLogEntries()).extracting(LogEntry::getIndex)
        .containsExactlyElementsOf(entries.subList(0, back.getLogEntries().size()).stream().map(LogEntry::getIndex).toList());
    assertThat(back.getPreviousLogIndex()).isEqualTo(4);
    assertThat(back.getCommitIndex()).isEqualTo(3);

    // one entry over the budget still goes, alone
    RangeCommand huge = RangeCommand.newBuilder().setWriteId(dev.rangekv.proto.WriteId.newBuilder()
        .setClientId(ByteString.copyFrom(new byte[RaftCodec.APPEND_BYTES + 1])).setRequestId(1)).build();
    AppendEntriesRequest one = RaftCodec.MODEL.createAppendEntriesRequestBuilder().setGroupId(42L).setSender(N1)
        .setTerm(2).setPreviousLogTerm(1).setPreviousLogIndex(4).setCommitIndex(3)
        .setLogEntries(List.of(RaftCodec.MODEL.createLogEntryBuilder().setIndex(5).setTerm(2).setOperation(huge).build(),
            RaftCodec.MODEL.createLogEntryBuilder().setIndex(6).setTerm(2).setOperation(big).build()))
        .setQuerySequenceNumber(9).setFlowControlSequenceNumber(11).build();
    assertThat(((AppendEntriesRequest) RaftCodec.decode(RaftCodec.encode(one, N2, List.of("n1")))).getLogEntries()).hasSize(1);
  }
}
