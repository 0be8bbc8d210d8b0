package dev.rangekv.server.ratis;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.consensus.GroupEvents;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.replica.LogPoint;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of one range group: a thin adapter that hands each call to the range's {@link
 * RangeReplica} (admission in {@link #startTransaction}, apply, queries after Ratis' ReadIndex/lease
 * check) and reports the durable applied index as its snapshot (the store is the snapshot;
 * install-snapshot notification mode, the span fetched from the leader's node). Ratis calls apply and
 * snapshot methods on one thread per group. Its leader and configuration notifications go to the
 * engine's {@link GroupEvents} (which drops repeats: Ratis reports a step-down both as "not leader" and
 * as the next leader's election).
 */
public final class RangeStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(RangeStateMachine.class);

  private final RangeReplica replica;
  private final GroupEvents events;
  private volatile TermIndex snapshot;

  public RangeStateMachine(RangeReplica replica, GroupEvents events) {
    this.replica = replica;
    this.events = events;
  }

  public RangeReplica replica() {
    return replica;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    super.initialize(server, groupId, storage);
    load();
    replica.opened(index -> {
      RaftServer s = getServer().getNow(null);
      if (s == null) {
        return java.util.OptionalLong.empty();
      }
      try {
        TermIndex ti = s.getDivision(getGroupId()).getRaftLog().getTermIndex(index);
        return ti == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(ti.getTerm());
      } catch (IOException e) {
        return java.util.OptionalLong.empty(); // the group is closing: the span keeps the stored term
      }
    });
    getLifeCycle().startAndTransition(() -> {});
  }

  private void load() {
    replica.load().ifPresent(point -> {
      TermIndex ti = TermIndex.valueOf(point.term(), point.index());
      snapshot = ti;
      setLastAppliedTermIndex(ti);
    });
  }

  @Override
  protected void setLastAppliedTermIndex(TermIndex ti) {
    super.setLastAppliedTermIndex(ti);
    if (ti != null && replica != null) { // null while BaseStateMachine's constructor runs
      replica.appliedTo(ti.getIndex());
    }
  }

  @Override
  protected boolean updateLastAppliedTermIndex(long term, long index) {
    boolean updated = super.updateLastAppliedTermIndex(term, index);
    mirrorApplied();
    return updated;
  }

  @Override
  protected boolean updateLastAppliedTermIndex(TermIndex ti) {
    boolean updated = super.updateLastAppliedTermIndex(ti);
    mirrorApplied();
    return updated;
  }

  /** The replica keeps Ratis' applied index too: entries Ratis applied itself (configurations) count. */
  private void mirrorApplied() {
    TermIndex now = getLastAppliedTermIndex();
    if (now != null && replica != null) { // null while BaseStateMachine's constructor runs
      replica.appliedTo(now.getIndex());
    }
  }

  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    TransactionContext ctx =
        TransactionContext.newBuilder()
            .setStateMachine(this)
            .setClientRequest(request)
            .setLogData(request.getMessage().getContent())
            .build();
    RangeKvError error;
    try {
      RangeCommand cmd = command(request.getMessage());
      ctx.setStateMachineContext(cmd);
      error = replica.admitProposal(cmd).orElse(null);
    } catch (InvalidProtocolBufferException e) {
      error = RangeKvErrors.invalidArgument("command", "undecodable command: " + e.getMessage());
    }
    if (error != null) {
      ctx.setException(new RangeKvException(error));
    }
    return ctx;
  }

  /** The command of a request submitted on this node: the object itself when it came as one. */
  private static RangeCommand command(Message m) throws InvalidProtocolBufferException {
    if (m instanceof ProtoMessage<?> pm && pm.value() instanceof RangeCommand cmd) {
      return cmd;
    }
    return RangeCommand.parseFrom(m.getContent().asReadOnlyByteBuffer());
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    // the leader applies the object it proposed; other replicas parse the entry
    Optional<RangeCommand> cmd = trx.getStateMachineContext() instanceof RangeCommand c
        ? Optional.of(c) : parseCommand(entry);
    CommandResult result = replica.apply(cmd, entry.getTerm(), entry.getIndex());
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(ProtoMessage.of(result));
  }

  private static Optional<RangeCommand> parseCommand(LogEntryProto entry) {
    try {
      return Optional.of(RangeCommand.parseFrom(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer()));
    } catch (InvalidProtocolBufferException e) {
      log.error("undecodable log entry index={} error={}", entry.getIndex(), e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    QueryResult result;
    try {
      // a query submitted on this node arrives as the object itself: no encode and parse
      result = replica.serve(request instanceof ProtoMessage<?> pm && pm.value() instanceof RangeQuery q
          ? q
          : RangeQuery.parseFrom(request.getContent().asReadOnlyByteBuffer()));
    } catch (InvalidProtocolBufferException e) {
      result = QueryResult.newBuilder()
          .setError(RangeKvErrors.invalidArgument("query", "undecodable query: " + e.getMessage()))
          .build();
    }
    return CompletableFuture.completedFuture(ProtoMessage.of(result));
  }

  /** Persists the applied index (including entries Ratis only notified) durably: the log may be purged to it. */
  @Override
  public long takeSnapshot() {
    TermIndex ti = getLastAppliedTermIndex();
    if (ti == null || ti.getIndex() <= 0 || ti.getTerm() < 0
        || !replica.persistApplied(new LogPoint(ti.getTerm(), ti.getIndex()))) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    snapshot = ti;
    return ti.getIndex();
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    TermIndex ti = snapshot;
    return ti == null ? null : new SnapshotInfo() {
      @Override
      public TermIndex getTermIndex() {
        return ti;
      }

      @Override
      public List<org.apache.ratis.server.storage.FileInfo> getFiles() {
        return List.of();
      }
    };
  }

  /**
   * A new replica (or one behind the leader's purged log) fetches the range's span snapshot from the
   * leader's node; {@link #reinitialize} loads it. A failed fetch fails the future, so Ratis asks again
   * on its next notification (never "unavailable": the log alone cannot rebuild a range whose initial
   * data came from a split). The span is installed durably before Ratis learns its index (see {@link
   * RangeReplica#install}).
   */
  @Override
  public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto roleInfo, TermIndex firstTermIndexInLog) {
    String leader = roleInfo.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8();
    log.info("range fetches a span snapshot rangeId={} firstLogIndex={} leader={}", replica.rangeId(),
        firstTermIndexInLog, leader);
    return replica.fetchSpan(leader).thenApply(span -> {
      LogPoint point = replica.install(span);
      return TermIndex.valueOf(point.term(), point.index());
    });
  }

  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  @Override
  public void reinitialize() {
    load();
    Optional<LogPoint> span = replica.installed();
    if (span.isPresent() && snapshot == null) {
      // A split child with no writes yet ships applied index 0, which load() does not treat as a
      // snapshot; but Ratis' reload after an install requires one (null -> NPE, division closed).
      // Index 0 of a child's log is its initial configuration entry, never a state machine command.
      TermIndex ti = TermIndex.valueOf(span.get().term(), span.get().index());
      snapshot = ti;
      setLastAppliedTermIndex(ti);
    }
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  /** Any member learns of a new leader here; this replica's own election included. */
  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
    if (member.getPeerId().equals(newLeaderId)) {
      events.becameLeader(replica.rangeId());
    } else {
      events.lostLeadership(replica.rangeId(), newLeaderId == null ? "" : newLeaderId.toString());
    }
  }

  /** The leader steps down (before any other leader is known). */
  @Override
  public void notifyNotLeader(Collection<TransactionContext> pending) {
    events.lostLeadership(replica.rangeId(), "");
  }

  /** A configuration entry applied here (or one installed with a snapshot). */
  @Override
  public void notifyConfigurationChanged(long term, long index, RaftConfigurationProto conf) {
    events.configurationApplied(replica.rangeId(), members(conf.getPeersList()), members(conf.getOldPeersList()));
  }

  private static List<Member> members(List<RaftPeerProto> peers) {
    return peers.stream().map(p -> new Member(p.getId().toStringUtf8(), p.getAddress())).toList();
  }

  @Override
  public void close() throws IOException {
    events.lostLeadership(replica.rangeId(), ""); // a group closed while it leads leads no more
    replica.closed();
    super.close();
  }

  @Override
  public String toString() {
    return "RangeStateMachine[r" + replica.rangeId() + "]";
  }
}
