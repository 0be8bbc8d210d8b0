package dev.rangekv.server.replica;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.proto.replica.WriteResults;
import dev.rangekv.server.split.SplitApplier;
import dev.rangekv.server.split.SplitApplier.SplitOutcome;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.WriteBatchBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One range replica's state and apply logic, free of any consensus library: validates commands on the
 * leader ({@link #admit}) and again at apply, applies each entry in one write batch with the applied
 * index (dispatching on the command's kind through a {@link CommandTable}), serves read-only queries once
 * the engine confirmed the leadership, and installs span snapshots. The consensus adapter calls it in
 * log order on one thread per range at a time; reads of its state are safe from any thread.
 *
 * <p>A child range whose record the local parent has not yet written is <em>pending</em>: it refuses
 * admission and queries, and its apply blocks until the record appears, never rejecting an entry
 * (other replicas would accept it).
 */
public final class RangeReplica {
  private static final Logger log = LoggerFactory.getLogger(RangeReplica.class);

  /** One entry being applied: the command that passed the checks, the descriptor it passed against. */
  record Entry(RangeCommand cmd, RangeDescriptor descriptor, long term, long index, WriteBatchBuilder batch) {}

  private final long rangeId;
  private final NodeStore store;
  private final ReplicaHost host;
  private final CommandTable table;
  private final CompletableFuture<RangeDescriptor> known = new CompletableFuture<>();
  private volatile RangeDescriptor descriptor;
  private volatile boolean closed;
  /** Held while an entry's batch is written and the descriptor swapped: a span export reads at one point. */
  private final Object applyLock = new Object();
  /** The left neighbour this range is frozen for (a merge in progress); 0 when not frozen. */
  private volatile long frozenFor;
  /**
   * The applied point of the last span snapshot installed since start (null: none). Entries at or below
   * it are already in the store: an apply of one that the log still held is skipped.
   */
  private volatile LogPoint installed;
  /** The highest term of an entry applied here since start (0: none). */
  private volatile long lastAppliedTerm;
  /** Waiters of {@link #appliedPast}, by the term they wait past. */
  private final java.util.concurrent.ConcurrentSkipListMap<Long, CompletableFuture<Void>> pastTerm =
      new java.util.concurrent.ConcurrentSkipListMap<>();
  /** The engine's applied index of this replica (entries it applied and entries it only noted); -1: none. */
  private volatile long appliedIndex = -1;
  /**
   * The range's dedupe table in memory (see {@link RecentWriteIds}): client writes keep it equal to the
   * store; every other change of the range's local state (other commands, span installs, a reload, a
   * failed apply) drops it.
   */
  private final RecentWriteIds writeIds = new RecentWriteIds();
  /** The term of a log entry the engine's log holds, when it holds it (see {@link #logTermAt}). */
  private volatile java.util.function.LongFunction<OptionalLong> logTerms = index -> OptionalLong.empty();

  public RangeReplica(long rangeId, NodeStore store, ReplicaHost host) {
    this.rangeId = rangeId;
    this.store = store;
    this.host = host;
    this.table = new CommandTable(Map.of(
        RangeCommand.OpCase.CHANGE_REPLICAS, this::applyDescriptorChange,
        RangeCommand.OpCase.FREEZE, this::applyDescriptorChange,
        RangeCommand.OpCase.MERGE, this::applyDescriptorChange,
        RangeCommand.OpCase.DORMANCY, e -> new Applied(
            DormancyRecord.apply(rangeId, e.cmd().getDormancy(), e.term(), e.index(), e.batch()), Optional.empty(),
            Optional.empty(), Optional.of(e.cmd().getDormancy()), List.of(), Optional.empty()),
        RangeCommand.OpCase.SPLIT, this::applySplit,
        RangeCommand.OpCase.INGEST, this::applyIngest,
        RangeCommand.OpCase.WRITES, this::applyGroupedWrites,
        RangeCommand.OpCase.BATCH, this::applySingleWrite,
        // an entry with no op applies as the empty single write it decodes to
        RangeCommand.OpCase.OP_NOT_SET, this::applySingleWrite));
  }

  public long rangeId() {
    return rangeId;
  }

  /** The current descriptor; empty while the range is pending. */
  public Optional<RangeDescriptor> descriptor() {
    return Optional.ofNullable(descriptor);
  }

  /**
   * Loads the range's stored state (at open and after a span install); the stored applied point when the
   * range applied anything, which the engine resumes from.
   */
  public Optional<LogPoint> load() {
    Optional<RangeLocalState> state = store.rangeState(rangeId);
    if (state.isEmpty()) {
      return Optional.empty();
    }
    RangeLocalState s = state.get();
    writeIds.invalidate();
    descriptor = s.descriptor();
    frozenFor = DescriptorChangeApplier.frozenFor(store, rangeId);
    known.complete(s.descriptor());
    return s.appliedIndex() > 0 ? Optional.of(new LogPoint(s.appliedTerm(), s.appliedIndex())) : Optional.empty();
  }

  /** The engine opened this replica's group: the node may route to it. */
  public void opened(java.util.function.LongFunction<OptionalLong> logTerms) {
    this.logTerms = logTerms;
    if (descriptor == null) {
      log.info("range pending until its parent applies the split rangeId={}", rangeId);
    }
    host.register(this);
  }

  /** The engine closed this replica's group. */
  public void closed() {
    closed = true;
    host.unregister(this);
  }

  /** The engine's applied index moved to {@code index} (an entry applied here, or one it applied itself). */
  public void appliedTo(long index) {
    appliedIndex = index;
    if (!pastTerm.isEmpty()) {
      logTermAt(index).ifPresent(this::appliedTerm); // a new leader's first entry, which no apply sees
    }
  }

  /**
   * Completes once this replica applied an entry of a term after {@code term}: from then on, every
   * entry of {@code term} or before is either applied here or gone for good (the new term's leader
   * overwrote it), so a leader of {@code term} that stepped down can tell what became of its proposals.
   */
  public CompletableFuture<Void> appliedPast(long term) {
    CompletableFuture<Void> f = pastTerm.computeIfAbsent(term, t -> new CompletableFuture<>());
    appliedTerm(lastAppliedTerm); // it may have applied one already
    return f;
  }

  /** The result recorded for a client write applied here (its dedupe record); empty when there is none. */
  public Optional<CommandResult> recordedWrite(dev.rangekv.proto.WriteId id) {
    return DedupeTable.recorded(store, rangeId, id);
  }

  private void appliedTerm(long term) {
    if (term > lastAppliedTerm) {
      lastAppliedTerm = term;
    }
    java.util.Map<Long, CompletableFuture<Void>> done = pastTerm.headMap(term, false);
    for (Long t : List.copyOf(done.keySet())) {
      CompletableFuture<Void> f = pastTerm.remove(t);
      if (f != null) {
        f.complete(null);
      }
    }
  }

  /** The engine's applied index of this replica; empty before it applied or noted any entry. */
  public OptionalLong appliedIndex() {
    long i = appliedIndex;
    return i < 0 ? OptionalLong.empty() : OptionalLong.of(i);
  }

  /**
   * The term of entry {@code index} in this replica's log, while the log holds it. A range that has
   * applied nothing stores (term 0, index 0), but entry 0 of its log (the first leader's configuration)
   * has a real term, and a span snapshot must carry that one: a new replica installed at (0, 0) never
   * matches the leader's log and cannot join.
   */
  public OptionalLong logTermAt(long index) {
    return logTerms.apply(index);
  }

  /** True while a merge has frozen this range (it refuses everything but the unfreeze and the same freeze). */
  public boolean isFrozen() {
    return frozenFor != 0;
  }

  /**
   * Runs {@code read} while no entry of this range is being applied: what it reads of this range's
   * local state and a store snapshot it takes agree on one applied index (a span export's point).
   */
  public <T> T atAppliedPoint(Supplier<T> read) {
    synchronized (applyLock) {
      return read.get();
    }
  }

  /** The local parent recorded this range: a pending replica learns its bounds. */
  public void learn() {
    if (descriptor == null) {
      store.rangeState(rangeId).ifPresent(s -> {
        writeIds.invalidate();
        descriptor = s.descriptor();
        known.complete(s.descriptor());
      });
    }
  }

  /**
   * The check of a command about to be appended on the leader: grouped client writes were admitted one
   * by one before they were buffered, every other command is admitted here.
   */
  public Optional<RangeKvError> admitProposal(RangeCommand cmd) {
    return cmd.hasWrites() ? Optional.empty() : admit(cmd);
  }

  /** The leader's admission check: why {@code cmd} must not be proposed, if it must not. */
  public Optional<RangeKvError> admit(RangeCommand cmd) {
    RangeDescriptor d = descriptor;
    if (d == null) {
      return Optional.of(notReady());
    }
    if (frozenFor != 0 && !DescriptorChangeApplier.takenWhileFrozen(cmd, frozenFor)) {
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

  /**
   * Applies the committed entry at ({@code term}, {@code index}); {@code cmd} is empty when the entry did
   * not decode (refused at apply like a command of another range). An entry an installed span already
   * holds is skipped. Blocks while the range is pending.
   */
  public CommandResult apply(Optional<RangeCommand> cmd, long term, long index) {
    if (descriptor == null) {
      awaitKnown();
    }
    synchronized (applyLock) {
      LogPoint installedNow = installed; // read under the lock: an install may have just finished
      if (installedNow != null && index <= installedNow.index()) {
        return CommandResult.getDefaultInstance();
      }
      long start = System.nanoTime();
      CommandResult result;
      try {
        result = applyLocked(cmd, term, index);
      } catch (RuntimeException | Error e) {
        writeIds.invalidate(); // it may hold what the batch did not write
        throw e;
      } finally {
        if (cmd.isEmpty() || !isClientWrite(cmd.get())) {
          writeIds.invalidate(); // a merge folds records in, a split or ingest rewrites local state
        }
      }
      host.applied(System.nanoTime() - start);
      appliedTerm(term);
      return result;
    }
  }

  private static boolean isClientWrite(RangeCommand cmd) {
    return switch (cmd.getOpCase()) {
      case WRITES, BATCH, OP_NOT_SET -> true;
      default -> false;
    };
  }

  private CommandResult applyLocked(Optional<RangeCommand> cmd, long term, long index) {
    RangeDescriptor d = descriptor;
    Applied applied;
    try (WriteBatchBuilder batch = store.newBatch()) {
      Optional<String> refusal = cmd.isEmpty() ? Optional.of("undecodable entry") : RangeChecks.refuse(cmd.get(), d);
      if (refusal.isEmpty() && frozenFor != 0 && !DescriptorChangeApplier.takenWhileFrozen(cmd.get(), frozenFor)) {
        applied = Applied.of(CommandApplier.refusal(frozenRefusal(d)));
        batch.setApplied(rangeId, term, index);
      } else if (refusal.isPresent()) {
        applied = Applied.of(CommandApplier.refusal(RangeKvErrors.rangeMoved(host.movedDescriptors(d), refusal.get())));
        batch.setApplied(rangeId, term, index);
      } else {
        applied = table.applierOf(cmd.get()).apply(new Entry(cmd.get(), d, term, index, batch));
      }
      store.write(batch);
    }
    applied.ingested().ifPresent(ingest -> SpanIngest.applied(store, ingest, rangeId));
    applied.deletedSpans().forEach(span -> host.spanDeleted(span.lo(), span.hi()));
    applied.split().ifPresent(split -> {
      descriptor = split.parent();
      log.info("range split rangeId={} childRangeId={} splitKey={} generation={} index={} childDormant={}",
          rangeId, split.child().rangeId(), split.child().start(), split.parent().generation(), index,
          split.childBornDormant());
      host.splitApplied(split);
    });
    applied.change().ifPresent(change -> {
      descriptor = change.next();
      frozenFor = change.frozenFor();
      log.info("range descriptor changed rangeId={} change={} descriptor={} frozenFor={} index={}",
          rangeId, change.kind(), change.next(), frozenFor, index);
    });
    LogPoint spanAt = installed; // past index when this entry installed a span (a restore's repair)
    appliedTo(spanAt != null && spanAt.index() > index ? spanAt.index() : index);
    applied.dormancy().ifPresent(dormancy -> {
      log.info("range dormancy applied rangeId={} dormant={} index={}", rangeId, dormancy.getDormant(), index);
      host.dormancyApplied(rangeId, dormancy.getDormant(), index);
    });
    return applied.result();
  }

  private Applied applyDescriptorChange(Entry e) {
    DescriptorChangeApplier.Outcome change =
        DescriptorChangeApplier.apply(store, e.descriptor(), e.cmd(), e.term(), e.index(), e.batch());
    CommandResult result = change.result().toBuilder().setRange(host.movedDescriptors(change.next()).get(0)).build();
    return new Applied(result, Optional.empty(), Optional.of(change), Optional.empty(), List.of(), Optional.empty());
  }

  private Applied applySplit(Entry e) {
    SplitOutcome split = SplitApplier.apply(store, e.descriptor(), e.cmd().getSplit(), e.term(), e.index(), e.batch());
    if (split.childBornDormant()) {
      DormancyRecord.bornDormant(split.child().rangeId(), e.batch());
    }
    return new Applied(split.result(), Optional.of(split), Optional.empty(), Optional.empty(), List.of(), Optional.empty());
  }

  /**
   * A restore's staged SST files become the range's data (see {@link SpanIngest}). A replica whose node
   * has no staged copy of an entry that applies installs the range's span from a node that staged and
   * applied it instead ({@link IngestRepair}): at an index at or past this one, so it holds the restored
   * keys, and the entries up to that index are skipped as after any span install.
   */
  private Applied applyIngest(Entry e) {
    IngestCommand ingest = e.cmd().getIngest();
    if (SpanIngest.repeated(store, rangeId, ingest)) {
      log.info("restore ingest entry repeated; applied once already rangeId={} restoreId={} index={}", rangeId,
          ingest.getRestoreId(), e.index());
      e.batch().setApplied(rangeId, e.term(), e.index());
      CommandResult result = CommandResult.newBuilder().setAppliedIndex(e.index())
          .setRange(host.movedDescriptors(e.descriptor()).get(0)).build();
      // the ingested field deletes whatever was staged again for it
      return new Applied(result, Optional.empty(), Optional.empty(), Optional.empty(), List.of(), Optional.of(ingest));
    }
    if (SpanIngest.missingHere(store, e.descriptor(), ingest)) {
      log.warn("restore files not staged on this node; fetching the restored span rangeId={} index={}", rangeId,
          e.index());
      LogPoint point = install(IngestRepair.fetch(host, rangeId, e.cmd().getIngest().getStagedNodeIdsList(), e.index()));
      load();
      CommandResult result = CommandResult.newBuilder().setAppliedIndex(e.index())
          .setRange(host.movedDescriptors(descriptor).get(0)).build();
      log.info("restored span installed in place of the staged files rangeId={} index={} installedAt={}", rangeId,
          e.index(), point.index());
      return Applied.of(result);
    }
    CommandResult result = SpanIngest.apply(store, e.descriptor(), ingest, e.index());
    if (result.hasError()) {
      // refused alike on every replica: the error is the answer (setting the range would replace it)
      e.batch().setApplied(rangeId, e.term(), e.index());
    } else {
      result = result.toBuilder().setRange(host.movedDescriptors(e.descriptor()).get(0)).build();
      SpanIngest.recordApplied(rangeId, ingest, e.batch());
      e.batch().setApplied(rangeId, e.term(), e.index()).sync(); // durable before the staged files go
    }
    return new Applied(result, Optional.empty(), Optional.empty(), Optional.empty(), List.of(),
        Optional.of(ingest));
  }

  private Applied applyGroupedWrites(Entry e) {
    WriteResults.Builder results = WriteResults.newBuilder();
    List<CommandApplier.Span> deletedSpans = new ArrayList<>(0);
    EntryBatch view = new EntryBatch(store, rangeId, e.batch(), writeIds);
    for (BatchRequest w : e.cmd().getWrites().getWritesList()) {
      results.addResults(applyClientWrite(view, e.descriptor(), w, deletedSpans));
    }
    e.batch().setApplied(rangeId, e.term(), e.index());
    return new Applied(CommandResult.newBuilder().setWrites(results).build(), Optional.empty(), Optional.empty(),
        Optional.empty(), deletedSpans, Optional.empty());
  }

  /** A single write proposed as its own entry (header and write id on the command). */
  private Applied applySingleWrite(Entry e) {
    List<CommandApplier.Span> deletedSpans = new ArrayList<>(0);
    RangeCommand cmd = e.cmd();
    BatchRequest w = cmd.getBatch().toBuilder().setHeader(cmd.getHeader()).setWriteId(cmd.getWriteId()).build();
    CommandResult result = applyClientWrite(new EntryBatch(store, rangeId, e.batch(), writeIds), e.descriptor(), w,
        deletedSpans);
    e.batch().setApplied(rangeId, e.term(), e.index());
    return new Applied(result, Optional.empty(), Optional.empty(), Optional.empty(), deletedSpans, Optional.empty());
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
    List<dev.rangekv.proto.RangeDescriptorProto> current = new ArrayList<>();
    store.rangeState(frozenFor).ifPresent(left -> current.add(host.movedDescriptors(left.descriptor()).get(0)));
    current.add(host.movedDescriptors(d).get(0));
    return RangeKvErrors.rangeMoved(current, "range " + rangeId + " is frozen for a merge into range " + frozenFor);
  }

  private RangeDescriptor awaitKnown() {
    while (true) {
      learn();
      if (closed) {
        throw new IllegalStateException("range " + rangeId + " closed while pending");
      }
      try {
        return known.get(1, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        log.debug("range still pending rangeId={}", rangeId);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while range " + rangeId + " pending", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Serves a read-only query the engine ordered after the leader's read check. */
  public QueryResult serve(RangeQuery q) {
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

  /**
   * Persists {@code point} as the applied point durably (the engine may then drop its log up to it);
   * false when there is nothing to persist (pending, or nothing applied).
   */
  public boolean persistApplied(LogPoint point) {
    if (descriptor == null || point.index() <= 0) {
      return false;
    }
    try (WriteBatchBuilder batch = store.newBatch()) {
      batch.setApplied(rangeId, point.term(), point.index()).sync();
      store.write(batch);
    }
    return true;
  }

  /**
   * Installs a fetched span durably BEFORE the engine learns its point: once it has it, it resets this
   * replica's log past that point, and a replica killed between the two would restart with a log that
   * looks current over a store that has nothing (its range pending forever).
   */
  public LogPoint install(StagedSpan span) {
    LogPoint point = new LogPoint(span.appliedTerm(), span.appliedIndex());
    synchronized (applyLock) {
      writeIds.invalidate();
      span.install();
      installed = point;
    }
    log.info("range span snapshot installed rangeId={} appliedIndex={}", rangeId, span.appliedIndex());
    return point;
  }

  /** The point of the span installed since start, if any. */
  public Optional<LogPoint> installed() {
    return Optional.ofNullable(installed);
  }

  /** Fetches this range's span snapshot from {@code leaderNodeId}'s node (see {@link ReplicaHost#fetchSpan}). */
  public CompletableFuture<StagedSpan> fetchSpan(String leaderNodeId) {
    return host.fetchSpan(rangeId, leaderNodeId);
  }

  @Override
  public String toString() {
    return "RangeReplica[r" + rangeId + "]";
  }
}
