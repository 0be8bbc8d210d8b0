package dev.rangekv.server.multiraft;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaSnapshot;
import dev.rangekv.proto.multiraft.AppendRequest;
import dev.rangekv.proto.multiraft.AppendResponse;
import dev.rangekv.proto.multiraft.Chunk;
import dev.rangekv.proto.multiraft.Entry;
import dev.rangekv.proto.multiraft.Members;
import dev.rangekv.proto.multiraft.MembersOp;
import dev.rangekv.proto.multiraft.Op;
import dev.rangekv.proto.multiraft.RaftMsg;
import dev.rangekv.proto.multiraft.SnapshotRequest;
import dev.rangekv.proto.multiraft.SnapshotResponse;
import dev.rangekv.proto.multiraft.VoteAsk;
import dev.rangekv.proto.multiraft.VoteReply;
import dev.rangekv.proto.replica.RangeCommand;
import io.microraft.MembershipChangeMode;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.groupop.UpdateRaftGroupMembersOp;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.BaseLogEntry;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.InstallSnapshotResponse;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.PreVoteResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.model.message.VoteRequest;
import io.microraft.model.message.VoteResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * MicroRaft's messages, log entries and snapshot chunks to and from this engine's protobuf format
 * ({@code multiraft.proto}). A group id is its range id; an endpoint is a replica incarnation
 * ({@link NodeEndpoint#wire()}). A log entry's operation is a {@link RangeCommand}, the leader's
 * {@link NewTerm}, a membership change, or the {@link StoreMarker} of a snapshot chunk; in the meta range's
 * group a {@link MetaCommand}, and its snapshot chunk's a {@link MetaSnapshot}. Stateless.
 */
final class RaftCodec {
  static final RaftModelFactory MODEL = new DefaultRaftModelFactory();
  /**
   * The entries' bytes above which an append request on the wire carries no further entry: with one
   * largest entry past it, a request stays well under the 8 MiB a node accepts in one message.
   */
  static final int APPEND_BYTES = 4 << 20;

  /** The operation a new leader appends first (its term's no-op). */
  enum NewTerm { INSTANCE }

  /** A snapshot chunk's operation: the range's state is its store at the snapshot's index (no copy). */
  enum StoreMarker { INSTANCE }

  private RaftCodec() {}

  // ---- operations and entries ----

  static Op op(Object operation) {
    if (operation instanceof RangeCommand cmd) {
      return Op.newBuilder().setCommand(cmd.toByteString()).build();
    }
    if (operation instanceof NewTerm) {
      return Op.newBuilder().setNewTerm(true).build();
    }
    if (operation instanceof StoreMarker) {
      return Op.newBuilder().setStoreMarker(true).build();
    }
    if (operation instanceof MetaCommand m) {
      return Op.newBuilder().setMetaCommand(m.toByteString()).build();
    }
    if (operation instanceof MetaSnapshot m) {
      return Op.newBuilder().setMetaSnapshot(m.toByteString()).build();
    }
    if (operation instanceof UpdateRaftGroupMembersOp m) {
      return Op.newBuilder().setMembers(MembersOp.newBuilder().addAllMembers(ids(m.getMembers()))
          .addAllVoting(ids(m.getVotingMembers())).setEndpoint(NodeEndpoint.wireOf(m.getEndpoint()))
          .setMode(m.getMode().ordinal())).build();
    }
    throw new IllegalArgumentException("no log encoding for operation " + operation);
  }

  static Object operation(Op op) {
    switch (op.getKindCase()) {
      case COMMAND:
        try {
          return RangeCommand.parseFrom(op.getCommand());
        } catch (InvalidProtocolBufferException e) {
          return Undecodable.INSTANCE;
        }
      case NEW_TERM:
        return NewTerm.INSTANCE;
      case STORE_MARKER:
        return StoreMarker.INSTANCE;
      case META_COMMAND:
        try {
          return MetaCommand.parseFrom(op.getMetaCommand());
        } catch (InvalidProtocolBufferException e) {
          return Undecodable.INSTANCE;
        }
      case META_SNAPSHOT:
        try {
          return MetaSnapshot.parseFrom(op.getMetaSnapshot());
        } catch (InvalidProtocolBufferException e) {
          throw new IllegalStateException("undecodable snapshot of the meta range", e);
        }
      case MEMBERS:
        MembersOp m = op.getMembers();
        return MODEL.createUpdateRaftGroupMembersOpBuilder().setMembers(endpoints(m.getMembersList()))
            .setVotingMembers(endpoints(m.getVotingList())).setEndpoint(NodeEndpoint.parse(m.getEndpoint()))
            .setMode(MembershipChangeMode.values()[m.getMode()]).build();
      default:
        return Undecodable.INSTANCE;
    }
  }

  /** A stored or received command that did not decode: applied as a refusal (see {@code RangeReplica#apply}). */
  enum Undecodable { INSTANCE }

  static Entry entry(BaseLogEntry e) {
    return Entry.newBuilder().setIndex(e.getIndex()).setTerm(e.getTerm()).setOp(op(e.getOperation())).build();
  }

  static LogEntry logEntry(Entry e) {
    return MODEL.createLogEntryBuilder().setIndex(e.getIndex()).setTerm(e.getTerm()).setOperation(operation(e.getOp()))
        .build();
  }

  static Members members(RaftGroupMembersView v) {
    return Members.newBuilder().setLogIndex(v.getLogIndex()).addAllMembers(ids(v.getMembers()))
        .addAllVoting(ids(v.getVotingMembers())).build();
  }

  static RaftGroupMembersView membersView(Members m) {
    return MODEL.createRaftGroupMembersViewBuilder().setLogIndex(m.getLogIndex())
        .setMembers(endpoints(m.getMembersList())).setVotingMembers(endpoints(m.getVotingList())).build();
  }

  static Chunk chunk(SnapshotChunk c) {
    return Chunk.newBuilder().setIndex(c.getIndex()).setTerm(c.getTerm()).setOp(op(c.getOperation()))
        .setChunkIndex(c.getSnapshotChunkIndex()).setChunkCount(c.getSnapshotChunkCount())
        .setMembers(members(c.getGroupMembersView())).build();
  }

  static SnapshotChunk snapshotChunk(Chunk c) {
    return MODEL.createSnapshotChunkBuilder().setIndex(c.getIndex()).setTerm(c.getTerm())
        .setOperation(operation(c.getOp())).setSnapshotChunkIndex(c.getChunkIndex())
        .setSnapshotChunkCount(c.getChunkCount()).setGroupMembersView(membersView(c.getMembers())).build();
  }

  /** The endpoints' wire forms ({@link NodeEndpoint#wire()}), in order. */
  static List<String> ids(Collection<RaftEndpoint> endpoints) {
    List<String> out = new ArrayList<>(endpoints.size());
    endpoints.forEach(e -> out.add(NodeEndpoint.wireOf(e)));
    return out;
  }

  /** The endpoints' node ids, in order. */
  static List<String> nodeIds(Collection<RaftEndpoint> endpoints) {
    List<String> out = new ArrayList<>(endpoints.size());
    endpoints.forEach(e -> out.add(NodeEndpoint.idOf(e)));
    return out;
  }

  static List<RaftEndpoint> endpoints(List<String> ids) {
    List<RaftEndpoint> out = new ArrayList<>(ids.size());
    ids.forEach(id -> out.add(NodeEndpoint.parse(id)));
    return out;
  }

  // ---- messages ----

  /**
   * {@code m} to the replica incarnation {@code target} on the wire; a leader's requests carry {@code
   * initialMembers} (see {@code multiraft.proto}).
   */
  static RaftMsg encode(RaftMessage m, RaftEndpoint target, List<String> initialMembers) {
    RaftMsg.Builder b = RaftMsg.newBuilder().setRangeId((Long) m.getGroupId())
        .setSender(NodeEndpoint.wireOf(m.getSender())).setTarget(NodeEndpoint.wireOf(target)).setTerm(m.getTerm());
    if (m instanceof AppendEntriesRequest || m instanceof InstallSnapshotRequest) {
      b.addAllInitialMembers(initialMembers);
    }
    if (m instanceof AppendEntriesRequest r) {
      AppendRequest.Builder a = AppendRequest.newBuilder().setPrevTerm(r.getPreviousLogTerm())
          .setPrevIndex(r.getPreviousLogIndex()).setCommitIndex(r.getCommitIndex())
          .setQuerySeq(r.getQuerySequenceNumber()).setFlowSeq(r.getFlowControlSequenceNumber());
      // MicroRaft batches up to a count of entries, not bytes: a follower catching up on entries of large
      // writes got one request over the peer's inbound message limit, the stream broke on every try, and
      // every range's messages to that node were lost with it (ControllerFailoverIT). A prefix of the
      // entries is a valid request: the follower commits no further than its last entry and answers with
      // that index, from which the leader sends the rest.
      long bytes = 0;
      for (var e : r.getLogEntries()) {
        Entry entry = entry(e);
        bytes += entry.getSerializedSize();
        if (a.getEntriesCount() > 0 && bytes > APPEND_BYTES) {
          break;
        }
        a.addEntries(entry);
      }
      return b.setAppend(a).build();
    }
    if (m instanceof AppendEntriesSuccessResponse r) {
      return b.setAppendReply(AppendResponse.newBuilder().setSuccess(true).setIndex(r.getLastLogIndex())
          .setQuerySeq(r.getQuerySequenceNumber()).setFlowSeq(r.getFlowControlSequenceNumber())).build();
    }
    if (m instanceof AppendEntriesFailureResponse r) {
      return b.setAppendReply(AppendResponse.newBuilder().setSuccess(false).setIndex(r.getExpectedNextIndex())
          .setQuerySeq(r.getQuerySequenceNumber()).setFlowSeq(r.getFlowControlSequenceNumber())).build();
    }
    if (m instanceof InstallSnapshotRequest r) {
      SnapshotRequest.Builder s = SnapshotRequest.newBuilder().setSenderLeader(r.isSenderLeader())
          .setSnapshotTerm(r.getSnapshotTerm()).setSnapshotIndex(r.getSnapshotIndex())
          .setChunkCount(r.getTotalSnapshotChunkCount()).addAllSnapshottedMembers(ids(r.getSnapshottedMembers()))
          .setMembers(members(r.getGroupMembersView())).setQuerySeq(r.getQuerySequenceNumber())
          .setFlowSeq(r.getFlowControlSequenceNumber());
      if (r.getSnapshotChunk() != null) {
        s.setChunk(chunk(r.getSnapshotChunk())).setHasChunk(true);
      }
      return b.setSnapshot(s).build();
    }
    if (m instanceof InstallSnapshotResponse r) {
      return b.setSnapshotReply(SnapshotResponse.newBuilder().setSnapshotIndex(r.getSnapshotIndex())
          .setRequestedChunk(r.getRequestedSnapshotChunkIndex()).setQuerySeq(r.getQuerySequenceNumber())
          .setFlowSeq(r.getFlowControlSequenceNumber())).build();
    }
    if (m instanceof PreVoteRequest r) {
      return b.setPreVote(VoteAsk.newBuilder().setLastLogTerm(r.getLastLogTerm()).setLastLogIndex(r.getLastLogIndex()))
          .build();
    }
    if (m instanceof PreVoteResponse r) {
      return b.setPreVoteReply(VoteReply.newBuilder().setGranted(r.isGranted())).build();
    }
    if (m instanceof VoteRequest r) {
      return b.setVote(VoteAsk.newBuilder().setLastLogTerm(r.getLastLogTerm()).setLastLogIndex(r.getLastLogIndex())
          .setSticky(r.isSticky())).build();
    }
    if (m instanceof VoteResponse r) {
      return b.setVoteReply(VoteReply.newBuilder().setGranted(r.isGranted())).build();
    }
    if (m instanceof TriggerLeaderElectionRequest r) {
      return b.setTriggerElection(VoteAsk.newBuilder().setLastLogTerm(r.getLastLogTerm())
          .setLastLogIndex(r.getLastLogIndex())).build();
    }
    throw new IllegalArgumentException("no wire encoding for message " + m);
  }

  static RaftMessage decode(RaftMsg m) {
    Long group = m.getRangeId();
    RaftEndpoint sender = NodeEndpoint.parse(m.getSender());
    int term = m.getTerm();
    switch (m.getKindCase()) {
      case APPEND: {
        AppendRequest a = m.getAppend();
        List<LogEntry> entries = new ArrayList<>(a.getEntriesCount());
        a.getEntriesList().forEach(e -> entries.add(logEntry(e)));
        return MODEL.createAppendEntriesRequestBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setPreviousLogTerm(a.getPrevTerm()).setPreviousLogIndex(a.getPrevIndex())
            .setCommitIndex(a.getCommitIndex()).setLogEntries(entries).setQuerySequenceNumber(a.getQuerySeq())
            .setFlowControlSequenceNumber(a.getFlowSeq()).build();
      }
      case APPEND_REPLY: {
        AppendResponse a = m.getAppendReply();
        if (a.getSuccess()) {
          return MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId(group).setSender(sender).setTerm(term)
              .setLastLogIndex(a.getIndex()).setQuerySequenceNumber(a.getQuerySeq())
              .setFlowControlSequenceNumber(a.getFlowSeq()).build();
        }
        return MODEL.createAppendEntriesFailureResponseBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setExpectedNextIndex(a.getIndex()).setQuerySequenceNumber(a.getQuerySeq())
            .setFlowControlSequenceNumber(a.getFlowSeq()).build();
      }
      case SNAPSHOT: {
        SnapshotRequest s = m.getSnapshot();
        return MODEL.createInstallSnapshotRequestBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setSenderLeader(s.getSenderLeader()).setSnapshotTerm(s.getSnapshotTerm())
            .setSnapshotIndex(s.getSnapshotIndex()).setTotalSnapshotChunkCount(s.getChunkCount())
            .setSnapshotChunk(s.getHasChunk() ? snapshotChunk(s.getChunk()) : null)
            .setSnapshottedMembers(endpoints(s.getSnapshottedMembersList()))
            .setGroupMembersView(membersView(s.getMembers())).setQuerySequenceNumber(s.getQuerySeq())
            .setFlowControlSequenceNumber(s.getFlowSeq()).build();
      }
      case SNAPSHOT_REPLY: {
        SnapshotResponse s = m.getSnapshotReply();
        return MODEL.createInstallSnapshotResponseBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setSnapshotIndex(s.getSnapshotIndex()).setRequestedSnapshotChunkIndex(s.getRequestedChunk())
            .setQuerySequenceNumber(s.getQuerySeq()).setFlowControlSequenceNumber(s.getFlowSeq()).build();
      }
      case PRE_VOTE:
        return MODEL.createPreVoteRequestBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setLastLogTerm(m.getPreVote().getLastLogTerm()).setLastLogIndex(m.getPreVote().getLastLogIndex()).build();
      case PRE_VOTE_REPLY:
        return MODEL.createPreVoteResponseBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setGranted(m.getPreVoteReply().getGranted()).build();
      case VOTE:
        return MODEL.createVoteRequestBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setLastLogTerm(m.getVote().getLastLogTerm()).setLastLogIndex(m.getVote().getLastLogIndex())
            .setSticky(m.getVote().getSticky()).build();
      case VOTE_REPLY:
        return MODEL.createVoteResponseBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setGranted(m.getVoteReply().getGranted()).build();
      case TRIGGER_ELECTION:
        return MODEL.createTriggerLeaderElectionRequestBuilder().setGroupId(group).setSender(sender).setTerm(term)
            .setLastLogTerm(m.getTriggerElection().getLastLogTerm())
            .setLastLogIndex(m.getTriggerElection().getLastLogIndex()).build();
      default:
        throw new IllegalArgumentException("unknown Raft message kind " + m.getKindCase());
    }
  }

  static ByteString bytes(Entry e) {
    return e.toByteString();
  }
}
