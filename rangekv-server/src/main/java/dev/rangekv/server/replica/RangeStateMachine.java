package dev.rangekv.server.replica;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.proto.replica.WriteResults;
import dev.rangekv.server.split.SplitApplier.SplitOutcome;
import dev.rangekv.server.split.SplitApplier;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.WriteBatchBuilder;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
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
 * The state machine of one range replica: validates commands on the leader ({@link #startTransaction})
 * and again at apply, applies each entry in one write batch with the applied index, serves read-only
 * queries after Ratis' ReadIndex/lease check, and reports the durable applied index as its snapshot
 * (the store is the snapshot; install-snapshot notification mode).
 *
 * <p>A child range whose record the local parent has not yet written is <em>pending</em>: it refuses
 * admission and queries, and its apply blocks until the record appears, never rejecting an entry
 * (other replicas would accept it). Ratis calls apply/snapshot methods on one thread per group.
 */
public final class RangeStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(RangeStateMachine.class);

  private final long rangeId;
  private final NodeStore store;
  private final ReplicaHost host;
  private final CompletableFuture<RangeDescriptor> known = new CompletableFuture<>();
  private volatile RangeDescriptor descriptor;
  private volatile TermIndex snapshot;
  private volatile boolean closed;
  /** Held while an entry's batch is written and the descriptor swapped: a span export reads at one point. */
  private final Object applyLock = new Object();
  /** The left neighbour this range is frozen for (a merge in progress); 0 when not frozen. */
  private volatile long frozenFor;
  /**
   * The applied point of the last span snapshot installed since start (null: none). Entries at or below
   * it are already in the store: an apply of one that the log still held is skipped.
   */
  private volatile TermIndex installed;

  public RangeStateMachine(long rangeId, NodeStore store, ReplicaHost host) {
    this.rangeId = rangeId;
    this.store = store;
    this.host = host;
  }

  public long rangeId() {
    return rangeId;
  }

  /** The current descriptor; empty while the range is pending. */
  public Optional<RangeDescriptor> descriptor() {
    return Optional.ofNullable(descriptor);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    super.initialize(server, groupId, storage);
    store.rangeState(rangeId).ifPresent(this::load);
    if (descriptor == null) {
      log.info("range pending until its parent applies the split rangeId={}", rangeId);
    }
    host.register(this);
    getLifeCycle().startAndTransition(() -> {});
  }

  private void load(RangeLocalState state) {
    if (state.appliedIndex() > 0) {
      TermIndex ti = TermIndex.valueOf(state.appliedTerm(), state.appliedIndex());
      snapshot = ti;
      setLastAppliedTermIndex(ti);
    }
    descriptor = state.descriptor();
    frozenFor = DescriptorChangeApplier.frozenFor(store, rangeId);
    known.complete(state.descriptor());
  }

  /**
   * The term of entry {@code index} in this replica's Raft log, while the log holds it. A range that has
   * applied nothing stores (term 0, index 0), but entry 0 of its log (the first leader's configuration)
   * has a real term, and a span snapshot must carry that one: a new replica installed at (0, 0) never
   * matches the leader's log and cannot join.
   */
  public java.util.OptionalLong logTermAt(long index) {
    RaftServer server = getServer().getNow(null);
    if (server == null) {
      return java.util.OptionalLong.empty();
    }
    try {
      TermIndex ti = server.getDivision(getGroupId()).getRaftLog().getTermIndex(index);
      return ti == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(ti.getTerm());
    } catch (IOException e) {
      return java.util.OptionalLong.empty(); // the group is closing: the span keeps the stored term
    }
  }

  /** True while a merge has frozen this range (it refuses everything but the unfreeze). */
  public boolean isFrozen() {
    return frozenFor != 0;
  }

  /**
   * Runs {@code read} while no entry of this range is being applied: what it reads of this range's
   * local state and a store snapshot it takes agree on one applied index (a span export's point).
   */
  public <T> T atAppliedPoint(java.util.function.Supplier<T> read) {
    synchronized (applyLock) {
      return read.get();
    }
  }

  /** The local parent recorded this range: a pending replica learns its bounds. */
  public void learn() {
    if (descriptor == null) {
      store.rangeState(rangeId).ifPresent(s -> {
        descriptor = s.descriptor();
        known.complete(s.descriptor());
      });
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
      // grouped client writes were admitted one by one before they were buffered
      error = cmd.hasWrites() ? null : admit(cmd).orElse(null);
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

  /** The leader's admission check: why {@code cmd} must not be proposed, if it must not. */
  public Optional<RangeKvError> admit(RangeCommand cmd) {
    RangeDescriptor d = descriptor;
    if (d == null) {
      return Optional.of(notReady());
    }
    if (frozenFor != 0 && !DescriptorChangeApplier.isUnfreeze(cmd)) {
      return Optional.of(frozenRefusal(d));
    }
    return RangeChecks.refuse(cmd, d).map(reason -> RangeKvErrors.rangeMoved(host.movedDescriptors(d), reason));
  }

  /** The leader's admission check of one client write before it joins a grouped entry. */
  public Optional<RangeKvError> admit(BatchRequest write) {
    RangeDescriptor d = descriptor;
    if (d == null) {
      return Optional.of(notReady());
    }
    if (frozenFor != 0) {
      return Optional.of(frozenRefusal(d));
    }
    return RangeChecks.refuse(write, d).map(reason -> RangeKvErrors.rangeMoved(host.movedDescriptors(d), reason));
  }

  private RangeKvError notReady() {
    return RangeKvErrors.unavailable("range " + rangeId + " is not ready on this node", true);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long term = entry.getTerm();
    long index = entry.getIndex();
    if (descriptor == null) {
      awaitKnown();
    }
    // the leader applies the object it proposed; other replicas parse the entry
    RangeCommand cmd = trx.getStateMachineContext() instanceof RangeCommand c ? c : parseCommand(entry);
    synchronized (applyLock) {
      TermIndex installedNow = installed; // read under the lock: an install may have just finished
      if (installedNow != null && index <= installedNow.getIndex()) {
        return CompletableFuture.completedFuture(ProtoMessage.of(CommandResult.getDefaultInstance()));
      }
      long start = System.nanoTime();
      CommandResult result = applyLocked(cmd, term, index);
      host.applied(System.nanoTime() - start);
      return CompletableFuture.completedFuture(ProtoMessage.of(result));
    }
  }

  private CommandResult applyLocked(RangeCommand cmd, long term, long index) {
    RangeDescriptor d = descriptor;
    CommandResult result;
    SplitOutcome split = null;
    DescriptorChangeApplier.Outcome change = null;
    dev.rangekv.proto.replica.DormancyCommand dormancy = null;
    dev.rangekv.proto.replica.IngestCommand ingest = null;
    List<CommandApplier.Span> deletedSpans = new java.util.ArrayList<>(0);
    try (WriteBatchBuilder batch = store.newBatch()) {
      Optional<String> refusal = cmd == null ? Optional.of("undecodable entry") : RangeChecks.refuse(cmd, d);
      if (refusal.isEmpty() && frozenFor != 0 && !DescriptorChangeApplier.isUnfreeze(cmd)) {
        result = CommandApplier.refusal(frozenRefusal(d));
        batch.setApplied(rangeId, term, index);
      } else if (refusal.isPresent()) {
        result = CommandApplier.refusal(RangeKvErrors.rangeMoved(host.movedDescriptors(d), refusal.get()));
        batch.setApplied(rangeId, term, index);
      } else if (DescriptorChangeApplier.handles(cmd)) {
        change = DescriptorChangeApplier.apply(store, d, cmd, term, index, batch);
        result = change.result().toBuilder().setRange(host.movedDescriptors(change.next()).get(0)).build();
      } else if (cmd.hasDormancy()) {
        result = DormancyRecord.apply(rangeId, cmd.getDormancy(), term, index, batch);
        dormancy = cmd.getDormancy();
      } else if (cmd.hasIngest()) {
        ingest = cmd.getIngest();
        result = SpanIngest.apply(store, d, ingest, index).toBuilder()
            .setRange(host.movedDescriptors(d).get(0)).build();
        batch.setApplied(rangeId, term, index).sync(); // durable before the staged files go
      } else if (cmd.hasSplit()) {
        split = SplitApplier.apply(store, d, cmd.getSplit(), term, index, batch);
        result = split.result();
      } else if (cmd.hasWrites()) {
        WriteResults.Builder results = WriteResults.newBuilder();
        EntryBatch view = new EntryBatch(store, rangeId, batch);
        for (BatchRequest w : cmd.getWrites().getWritesList()) {
          results.addResults(applyClientWrite(view, d, w, deletedSpans));
        }
        result = CommandResult.newBuilder().setWrites(results).build();
        batch.setApplied(rangeId, term, index);
      } else {
        // a single write proposed as its own entry (header and write id on the command)
        BatchRequest w = cmd.getBatch().toBuilder().setHeader(cmd.getHeader()).setWriteId(cmd.getWriteId()).build();
        result = applyClientWrite(new EntryBatch(store, rangeId, batch), d, w, deletedSpans);
        batch.setApplied(rangeId, term, index);
      }
      store.write(batch);
    }
    if (ingest != null) {
      SpanIngest.applied(store, ingest, rangeId);
    }
    deletedSpans.forEach(span -> host.spanDeleted(span.lo(), span.hi()));
    if (split != null) {
      descriptor = split.parent();
      log.info("range split rangeId={} childRangeId={} splitKey={} generation={} index={}",
          rangeId, split.child().rangeId(), split.child().start(), split.parent().generation(), index);
      host.splitApplied(split);
    }
    if (change != null) {
      descriptor = change.next();
      frozenFor = change.frozenFor();
      log.info("range descriptor changed rangeId={} change={} descriptor={} frozenFor={} index={}",
          rangeId, change.kind(), change.next(), frozenFor, index);
    }
    updateLastAppliedTermIndex(term, index);
    if (dormancy != null) {
      log.info("range dormancy applied rangeId={} dormant={} index={}", rangeId, dormancy.getDormant(), index);
      host.dormancyApplied(rangeId, dormancy.getDormant(), index);
    }
    return result;
  }

  /** One client write of an entry: checked on its own (invariant 4), deduplicated on its own (invariant 9). */
  private CommandResult applyClientWrite(EntryBatch view, RangeDescriptor d, BatchRequest w,
      List<CommandApplier.Span> deletedSpans) {
    if (frozenFor != 0) {
      return CommandApplier.refusal(frozenRefusal(d));
    }
    Optional<String> refusal = RangeChecks.refuse(w, d);
    if (refusal.isPresent()) {
      return CommandApplier.refusal(RangeKvErrors.rangeMoved(host.movedDescriptors(d), refusal.get()));
    }
    CommandResult result = CommandApplier.applyWrite(view, w);
    if (result.hasBatch() && result.getBatch().getSucceeded()) {
      deletedSpans.addAll(CommandApplier.deletedSpans(w));
    }
    return result;
  }

  /** RANGE_MOVED for a frozen range: its own descriptor and the merge target's current one. */
  private RangeKvError frozenRefusal(RangeDescriptor d) {
    List<dev.rangekv.proto.RangeDescriptorProto> current = new java.util.ArrayList<>();
    store.rangeState(frozenFor).ifPresent(left -> current.add(host.movedDescriptors(left.descriptor()).get(0)));
    current.add(host.movedDescriptors(d).get(0));
    return RangeKvErrors.rangeMoved(current, "range " + rangeId + " is frozen for a merge into range " + frozenFor);
  }

  private static RangeCommand parseCommand(LogEntryProto entry) {
    try {
      return RangeCommand.parseFrom(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      log.error("undecodable log entry index={} error={}", entry.getIndex(), e.getMessage());
      return null;
    }
  }

  private RangeDescriptor awaitKnown() {
    while (true) {
      learn();
      if (closed) {
        throw new IllegalStateException("range " + rangeId + " closed while pending");
      }
      try {
        return known.get(1, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        log.debug("range still pending rangeId={}", rangeId);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while range " + rangeId + " pending", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    QueryResult result;
    try {
      // a query submitted on this node arrives as the object itself: no encode and parse
      result = serve(request instanceof ProtoMessage<?> pm && pm.value() instanceof RangeQuery q
          ? q
          : RangeQuery.parseFrom(request.getContent().asReadOnlyByteBuffer()));
    } catch (InvalidProtocolBufferException e) {
      result = QueryResult.newBuilder()
          .setError(RangeKvErrors.invalidArgument("query", "undecodable query: " + e.getMessage()))
          .build();
    }
    return CompletableFuture.completedFuture(ProtoMessage.of(result));
  }

  private QueryResult serve(RangeQuery q) {
    RangeDescriptor d = descriptor;
    if (d == null) {
      return QueryResult.newBuilder()
          .setError(RangeKvErrors.unavailable("range " + rangeId + " is not ready on this node", true))
          .build();
    }
    if (frozenFor != 0) {
      return QueryResult.newBuilder().setError(frozenRefusal(d)).build();
    }
    Optional<String> refusal = RangeChecks.refuse(q, d);
    if (refusal.isPresent()) {
      return QueryResult.newBuilder().setError(RangeKvErrors.rangeMoved(host.movedDescriptors(d), refusal.get())).build();
    }
    return RangeReads.read(store, q);
  }

  /** Persists the applied index (including entries Ratis only notified) durably: the log may be purged to it. */
  @Override
  public long takeSnapshot() {
    TermIndex ti = getLastAppliedTermIndex();
    if (ti == null || descriptor == null || ti.getIndex() <= 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    try (WriteBatchBuilder batch = store.newBatch()) {
      batch.setApplied(rangeId, ti.getTerm(), ti.getIndex()).sync();
      store.write(batch);
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
   * leader's node; {@link #reinitialize} ingests it. A failed fetch fails the future, so Ratis asks again
   * on its next notification (never "unavailable": the log alone cannot rebuild a range whose initial
   * data came from a split).
   */
  @Override
  public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto roleInfo, TermIndex firstTermIndexInLog) {
    String leader = roleInfo.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8();
    log.info("range fetches a span snapshot rangeId={} firstLogIndex={} leader={}", rangeId, firstTermIndexInLog, leader);
    return host.fetchSpan(rangeId, leader).thenApply(this::install);
  }

  /**
   * Installs a fetched span durably BEFORE Ratis learns its index: once Ratis has it, it resets this
   * replica's log past that index, and a replica killed between the two would restart with a log that
   * looks current over a store that has nothing (its range pending forever).
   */
  private TermIndex install(StagedSpan span) {
    TermIndex ti = TermIndex.valueOf(span.appliedTerm(), span.appliedIndex());
    synchronized (applyLock) {
      span.install();
      installed = ti;
    }
    log.info("range span snapshot installed rangeId={} appliedIndex={}", rangeId, span.appliedIndex());
    return ti;
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
    store.rangeState(rangeId).ifPresent(this::load);
    TermIndex span = installed;
    if (span != null && snapshot == null) {
      // A split child with no writes yet ships applied index 0, which load() does not treat as a
      // snapshot; but Ratis' reload after an install requires one (null -> NPE, division closed).
      // Index 0 of a child's log is its initial configuration entry, never a state machine command.
      snapshot = span;
      setLastAppliedTermIndex(span);
    }
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    host.unregister(this);
    super.close();
  }

  @Override
  public String toString() {
    return "RangeStateMachine[r" + rangeId + "]";
  }
}
