package dev.rangekv.meta.ratis;

import dev.rangekv.meta.state.MetaState;
import dev.rangekv.meta.state.MetaLimits;
import dev.rangekv.meta.state.MalformedMetaCommandException;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.proto.meta.MetaApplyReply;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaSnapshot;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta range's Ratis state machine: holds the applied {@link MetaState} (swapped atomically,
 * readable from any thread) and applies each {@link MetaCommand} entry in log order on Ratis'
 * updater thread. Snapshots are whole-state {@link MetaSnapshot} files in the group's {@code sm/}
 * directory ({@link SimpleStateMachineStorage}: {@code snapshot.<term>_<index>} plus its md5), the
 * latest of which is loaded at start; the two newest are kept.
 *
 * <p>Apply never throws and never fails its future: an undecodable or malformed entry is logged and
 * skipped (its reply carries the reason), the same way on every replica, since {@link
 * MetaState#apply} is a pure function of the state and the entry.
 *
 * <p>Nodes run Ratis with install-snapshot in notification mode (server-wide): a meta follower whose
 * log the leader purged past its index (a new meta member, or one that was down through a purge)
 * is notified, fetches the leader's whole state with a read-only query ({@link
 * LeaderSnapshotFetch}), stores it as its latest snapshot and reloads from it. The state travels
 * in one gRPC message, so it must stay below Ratis' {@code raft.grpc.message.size.max}.
 *
 * <p>Host it with its peers: a node should (re)start its meta replica with {@code
 * setGroup(MetaGroups.group(peers))} and {@code StartupOption.RECOVER}. A division recovered from its
 * directory alone starts with an empty initial configuration; while it installs a snapshot its
 * log-derived configuration is gone, and if its election timer fires then (the leader paces
 * notifications by its error back-off, up to seconds) it finds itself not in the configuration and
 * shuts down. Observed with Ratis 3.3.0; the peers given at start avoid it.
 */
public final class MetaStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(MetaStateMachine.class);
  /** Snapshots kept on disk (the newest and one before it). */
  private static final SnapshotRetentionPolicy KEEP = new SnapshotRetentionPolicy() {
    @Override
    public int getNumSnapshotsRetained() {
      return 2;
    }
  };

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final MetaLimits limits;
  private final Parameters raftParameters;
  private volatile MetaState state;
  /** Told after every applied entry (e.g. to push map changes to watchers); must return quickly. */
  private volatile Runnable onApplied = () -> {};
  /** Pairs {@link #state} with the last applied term-index for readers on other threads. */
  private final Object appliedLock = new Object();
  /** Runs leader-state fetches (rare: a follower behind the purged log); its thread starts on first use. */
  private final ExecutorService fetcher = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "meta-snapshot-fetch");
    t.setDaemon(true);
    return t;
  });

  public MetaStateMachine() {
    this(MetaLimits.defaults());
  }

  /** {@code limits} must be the same on every meta replica. */
  public MetaStateMachine(MetaLimits limits) {
    this(limits, new Parameters());
  }

  /**
   * {@code limits} must be the same on every meta replica; {@code raftParameters} are the node's Ratis
   * parameters (its TLS), for the client that fetches the leader's state.
   */
  public MetaStateMachine(MetaLimits limits, Parameters raftParameters) {
    this.limits = limits;
    this.raftParameters = raftParameters;
    this.state = MetaState.empty(limits);
  }

  /** Has {@code listener} run after every entry this replica applies (replacing the one set before). */
  public void onApplied(Runnable listener) {
    this.onApplied = listener;
  }

  /** The state applied so far on this replica. */
  public MetaState state() {
    return state;
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    load(storage.getLatestSnapshot());
    getLifeCycle().startAndTransition(() -> {});
  }

  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  @Override
  public void reinitialize() throws IOException {
    load(storage.loadLatestSnapshot());
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  private void load(SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) {
      return;
    }
    File file = snapshot.getFile().getPath().toFile();
    MD5Hash md5 = snapshot.getFile().getFileDigest();
    if (md5 != null) {
      MD5FileUtil.verifySavedMD5(file, md5);
    }
    MetaSnapshot parsed;
    try (InputStream in = Files.newInputStream(file.toPath())) {
      parsed = MetaSnapshot.parseFrom(in);
    }
    state = MetaState.fromSnapshot(parsed, limits);
    setLastAppliedTermIndex(snapshot.getTermIndex());
    log.info("meta state loaded snapshot={} mapVersion={} ranges={} nodes={}",
        snapshot.getTermIndex(), state.mapVersion(), state.ranges().size(), state.nodes().size());
  }

  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    TransactionContext ctx = TransactionContext.newBuilder()
        .setStateMachine(this)
        .setClientRequest(request)
        .setLogData(request.getMessage().getContent())
        .build();
    try {
      MetaCommand.parseFrom(request.getMessage().getContent().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      ctx.setException(new MalformedMetaCommandException("undecodable meta command: " + e.getMessage()));
    }
    return ctx;
  }

  /**
   * Replies with a {@link MetaApplyReply}: empty when applied, the reason when the entry was skipped,
   * the granted block for an {@code allocate_range_ids} entry (the proposer learns its block from its
   * own entry's reply: the state it reads afterwards may hold later grants too).
   */
  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    MetaApplyReply.Builder reply = MetaApplyReply.newBuilder();
    MetaState next = state;
    try {
      MetaCommand cmd = MetaCommand.parseFrom(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
      next = next.apply(cmd);
      if (cmd.hasAllocateRangeIds()) {
        int count = cmd.getAllocateRangeIds().getCount();
        reply.setFirstRangeId(next.rangeIds().next() - count).setRangeIdCount(count);
      }
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      // Deterministic: the same entry on the same state fails the same way on every replica.
      String skipped = e.getClass().getSimpleName() + ": " + e.getMessage();
      reply.setSkipped(skipped);
      log.warn("meta entry skipped index={} reason={}", entry.getIndex(), skipped);
    }
    synchronized (appliedLock) {
      state = next;
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    }
    onApplied.run();
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply.build().toByteArray())));
  }

  /**
   * Writes the state at the last applied index (Ratis calls this on the updater thread, so the two
   * agree) to a temp file, moves it into place, records its md5, and drops older snapshots.
   */
  @Override
  public long takeSnapshot() throws IOException {
    TermIndex ti = getLastAppliedTermIndex();
    if (ti == null || ti.getIndex() <= 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    MetaState s = state;
    writeSnapshot(ti, s.toSnapshot());
    log.info("meta snapshot taken termIndex={} mapVersion={}", ti, s.mapVersion());
    return ti.getIndex();
  }

  private void writeSnapshot(TermIndex ti, MetaSnapshot snapshot) throws IOException {
    File file = storage.getSnapshotFile(ti.getTerm(), ti.getIndex());
    File tmp = new File(file.getParentFile(), file.getName() + ".writing");
    try (FileOutputStream out = new FileOutputStream(tmp)) {
      snapshot.writeTo(out);
      out.getFD().sync(); // the log is purged up to the returned index: the file must be durable first
    }
    Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), ti));
    storage.cleanupOldSnapshots(KEEP);
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    synchronized (appliedLock) {
      super.notifyTermIndexUpdated(term, index);
    }
  }

  /** Answers {@link LeaderSnapshotFetch#QUERY}: the whole state with the term-index it reflects. */
  @Override
  public CompletableFuture<Message> query(Message request) {
    if (!LeaderSnapshotFetch.QUERY.equals(request.getContent())) {
      return CompletableFuture.failedFuture(new MalformedMetaCommandException("unknown meta query"));
    }
    MetaState s;
    TermIndex ti;
    synchronized (appliedLock) {
      s = state;
      ti = getLastAppliedTermIndex();
    }
    return CompletableFuture.completedFuture(LeaderSnapshotFetch.encode(ti, s.toSnapshot()));
  }

  /**
   * This follower is behind the leader's log start (or is a new member): fetch the leader's state
   * and store it as the latest snapshot; Ratis then pauses this state machine and calls {@link
   * #reinitialize}, which loads it. A failed fetch fails the future and Ratis notifies again.
   */
  @Override
  public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto roleInfo,
      TermIndex firstTermIndexInLog) {
    RaftPeerProto leader = roleInfo.getFollowerInfo().getLeaderInfo().getId();
    log.info("meta follower fetches the leader's state leader={} firstLogIndex={}",
        leader.getId().toStringUtf8(), firstTermIndexInLog);
    RaftProperties properties = getServer().join().getProperties(); // completed in initialize
    return LeaderSnapshotFetch.fetch(properties, raftParameters, getGroupId(), leader, fetcher).thenApplyAsync(f -> {
      try {
        writeSnapshot(f.termIndex(), f.snapshot());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      log.info("meta follower staged the leader's state termIndex={}", f.termIndex());
      return f.termIndex();
    }, fetcher);
  }

  @Override
  public void close() throws IOException {
    fetcher.shutdownNow();
    super.close();
  }
}
