package dev.rangekv.server.multiraft;

import dev.rangekv.proto.multiraft.Envelope;
import dev.rangekv.proto.multiraft.Quiesce;
import dev.rangekv.proto.multiraft.RaftMsg;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.ConsensusException.Kind;
import dev.rangekv.server.consensus.EngineTimers;
import dev.rangekv.server.consensus.EngineTuning;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.storage.raftlog.LogBatch;
import dev.rangekv.storage.raftlog.LogDb;
import io.grpc.BindableService;
import io.grpc.Channel;
import io.microraft.Ordered;
import io.microraft.QueryPolicy;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.exception.CannotReplicateException;
import io.microraft.exception.IndeterminateStateException;
import io.microraft.exception.NotLeaderException;
import io.microraft.exception.RaftException;
import io.microraft.persistence.RestoredRaftState;
import io.microraft.report.RaftNodeReport;
import io.microraft.report.RaftTerm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-wide multi-raft engine (experimental, beside the first adapter of the seam): every range group of this
 * node is a MicroRaft node run by a small fixed set of {@link Stripe} threads; all groups' appends and
 * term/vote changes of a stripe's cycle go into one synced write of the node's Raft log database
 * ({@link LogDb}); every group's messages of a cycle go to each peer node in one envelope on one stream
 * ({@link PeerStreams}, received by {@link #service()}). Proposals arrive already grouped per range by the
 * node's proposal buffer. Restart restores each group from the log database and the range's store
 * (its applied index is the snapshot). Thread-safe.
 */
public final class MultiRaftEngine implements RangeConsensus, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MultiRaftEngine.class);
  /** Raft entries a group may hold uncommitted; sizes MicroRaft's log ring with the snapshot interval. */
  private static final int MAX_PENDING_ENTRIES = 1_000;
  /** Whether idle groups quiesce ({@link Quiescence}; {@code -Drangekv.multiraft.quiesce=false}: never, for comparisons). */
  static final boolean QUIESCE_DEFAULT = !"false".equals(System.getProperty("rangekv.multiraft.quiesce"));

  /**
   * How to start the engine.
   *
   * @param logDir where the node's Raft log database lives
   * @param stripes the number of stripe threads (fixed, whatever the number of ranges)
   * @param requestTimeout how long a proposal or read may take before it fails as timed out
   */
  public record Config(String nodeId, Path logDir, EngineTuning tuning, int stripes, Duration requestTimeout,
      java.util.concurrent.Executor joinExecutor) {}

  /** What the engine needs of its node. */
  public interface Host {
    /** The ranges the node holds records of; a dormant one's group stays closed at start. */
    Iterable<Long> ranges();

    boolean dormant(long rangeId);

    /** A new replica for a range group the engine opens. */
    RangeReplica newReplica(long rangeId);

    /** The client address of {@code nodeId}, where its engine's stream service listens. */
    Optional<String> addressOf(String nodeId);

    /** A channel to a peer's client address (the node's, with its TLS and cluster identity). */
    Channel channel(String address);
  }

  private final Config config;
  private final Host host;
  private final LogDb db;
  private final PeerStreams streams;
  private final List<Stripe> stripes = new ArrayList<>();
  private final Map<Long, Group> groups = new ConcurrentHashMap<>();
  private final dev.rangekv.server.consensus.GroupEventHub events = new dev.rangekv.server.consensus.GroupEventHub();
  private final Map<String, String> raftAddresses = new ConcurrentHashMap<>();
  /**
   * Ranges added here empty ({@link #createEmpty}), waiting for their leader's first request: it names the
   * group's initial members, and the range's span is fetched from the leader before the group starts.
   * The value is true once the fetch runs.
   */
  private final Map<Long, Boolean> joining = new ConcurrentHashMap<>();
  /** Runs span fetches of joining ranges (never a stripe: a fetch takes as long as the span). */
  private final java.util.concurrent.Executor joinExecutor;
  private final TransportService service;
  private final MembershipChanges membership;
  /** How often a leader sends each follower a heartbeat (when it has nothing else to send). */
  private static final Duration HEARTBEAT_PERIOD = Duration.ofSeconds(1);
  private final RaftConfig raftConfig;
  /** Proposals from submission until committed and applied here, or failed. */
  private final LatencySample proposalTimes = new LatencySample();
  /** When each peer node was last heard from: what a quiesced group's followers watch instead of heartbeats. */
  private final NodeLiveness liveness;
  private final Quiescence quiescence;
  /** The nodes the open groups name, for the keep-alives. */
  private final GroupPeers peers = new GroupPeers();
  /** The meta range's group, once the node asked for it ({@link #meta}); null before. */
  private volatile MultiRaftMetaConsensus meta;

  private MultiRaftEngine(Config config, Host host, LogDb db) {
    this.config = config;
    this.host = host;
    this.db = db;
    this.streams = new PeerStreams(config.nodeId(), host::addressOf, host::channel);
    for (int s = 0; s < config.stripes(); s++) {
      stripes.add(new Stripe(config.nodeId() + "-raft-stripe-" + s, db, !config.tuning().unsafeFlush(), streams));
    }
    this.service = new TransportService(this::receive);
    this.joinExecutor = config.joinExecutor();
    EngineTuning t = config.tuning();
    long heartbeatTimeoutSecs = Math.max(2, (t.rpcTimeoutMax().toMillis() + 999) / 1000);
    this.liveness = new NodeLiveness(TimeUnit.SECONDS.toMillis(heartbeatTimeoutSecs));
    this.quiescence = new Quiescence(liveness, HEARTBEAT_PERIOD.toMillis(), QUIESCE_DEFAULT);
    // an arriving learner's node unconnected for two heartbeat timeouts fails the change, as a dead voter's
    // silence loses it its leadership after one
    this.membership = new MembershipChanges(groups::get, this::notLeader, this::remember, this::connected,
        Duration.ofSeconds(2 * heartbeatTimeoutSecs));
    this.raftConfig = RaftConfig.newBuilder()
        // MicroRaft detects a lost leader by the heartbeat timeout; its election timeout only spaces the retries
        // of a (pre-)vote that found no majority. A new group's replicas open at slightly different times and
        // pre-vote at once, so the first round often fails (requests to peers not open yet are dropped, or
        // two candidates split the vote), and at 1 s one split child in eight waited that long for a leader
        // (BENCHMARKS.md, "A split child's first leader"); the first-election timeout spaces them instead
        .setLeaderElectionTimeoutMillis(Math.max(50, t.firstElectionMin().toMillis()))
        .setLeaderHeartbeatPeriodSecs(HEARTBEAT_PERIOD.toSeconds())
        .setLeaderHeartbeatTimeoutSecs(heartbeatTimeoutSecs)
        .setCommitCountToTakeSnapshot((int) Math.min(Integer.MAX_VALUE, Math.max(100, t.snapshotThreshold())))
        .setMaxPendingLogEntryCount(MAX_PENDING_ENTRIES)
        .setRaftNodeReportPublishPeriodSecs(2)
        .build();
  }

  /** Opens the log database, starts the stripes and reopens every non-dormant group it holds. */
  public static MultiRaftEngine start(Config config, Host host) {
    LogDb db = LogDb.open(config.logDir());
    MultiRaftEngine engine = new MultiRaftEngine(config, host, db);
    engine.stripes.forEach(Stripe::start);
    engine.loadAddresses();
    engine.startLiveness();
    int opened = 0;
    for (long rangeId : host.ranges()) {
      if (!host.dormant(rangeId) && GroupLog.exists(db, rangeId)) {
        engine.openRestored(rangeId);
        opened++;
      }
    }
    log.info("multi-raft engine started nodeId={} stripes={} groups={}", config.nodeId(), config.stripes(), opened);
    return engine;
  }

  /**
   * Every keep-alive period: the first stripe sends each known peer node an empty envelope (a keep-alive,
   * whatever else went to it), and every stripe wakes its quiesced followers whose leader's node went
   * unheard.
   */
  private void startLiveness() {
    long period = liveness.keepAliveMillis();
    for (Stripe s : stripes) {
      boolean first = s == stripes.get(0);
      s.every(period, () -> {
        if (first) {
          Set<String> targets = keepAliveTargets();
          streams.keepAlive(targets);
          liveness.observe(targets, System.currentTimeMillis());
        }
        quiescence.checkLeaders(s);
      });
    }
  }

  /** Groups quiesced here now, as leader or follower (for tests). */
  public int quiescedGroups() {
    int n = 0;
    for (Group g : groups.values()) {
      if (g.quiet) {
        n++;
      }
    }
    return n;
  }

  /** The runtime's counters since start, summed over the stripes. */
  public RuntimeFigures figures() {
    long[] f = new long[7];
    for (Stripe s : stripes) {
      f[0] += s.cycles.get();
      f[1] += s.syncs.get();
      f[2] += s.envelopes.get();
      f[3] += s.messages.get();
      f[4] += s.tasksRun.get();
      f[5] += s.wakeups.get();
      f[6] += s.appended.get();
    }
    return new RuntimeFigures(f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
  }

  /** The latencies this engine times itself (proposals, synced log writes), for the node's Raft meters. */
  public EngineTimers timers() {
    return kind -> switch (kind) {
      case PROPOSAL -> proposalTimes.read();
      case LOG_SYNC -> LatencySample.merged(stripes.stream().map(s -> s.syncTimes).toList());
    };
  }

  /** The stream service the node serves on its client port. */
  public BindableService service() {
    return service;
  }

  // ---- group lifecycle ----

  private Stripe stripeOf(long rangeId) {
    return stripes.get(Math.floorMod(Long.hashCode(rangeId * 0x9E3779B97F4A7C15L), stripes.size()));
  }

  private Group newGroup(long rangeId) {
    Stripe stripe = stripeOf(rangeId);
    GroupLog groupLog = new GroupLog(rangeId, stripe);
    RangeReplica replica = host.newReplica(rangeId);
    return new Group(rangeId, stripe, groupLog, new RangeMachine(replica, groupLog, config.nodeId()));
  }

  private RaftNode.RaftNodeBuilder builder(Group g) {
    return RaftNode.newBuilder().setGroupId(g.rangeId).setConfig(raftConfig).setExecutor(new StripeExecutor(g, quiescence)).setStore(g.log)
        .setTransport(new GroupTransport(g.stripe, g.log)).setStateMachine(g.machine)
        .setRaftNodeReportListener(r -> {
          g.report = r;
          countMembers(g, r.getEffectiveMembers().getMembers());
          report(g, r);
        });
  }

  /** Passes a MicroRaft report on as the seam's events (the hub drops repeats). */
  private void report(Group g, RaftNodeReport r) {
    long rangeId = g.rangeId;
    boolean leads = r.getRole() == io.microraft.RaftRole.LEADER;
    if (leads) {
      events.becameLeader(rangeId);
    } else {
      RaftTerm term = r.getTerm();
      events.lostLeadership(rangeId, term == null || term.getLeaderEndpoint() == null ? ""
          : NodeEndpoint.idOf(term.getLeaderEndpoint()));
    }
    if (r.getReason() == RaftNodeReport.RaftNodeReportReason.GROUP_MEMBERS_CHANGE) {
      events.configurationApplied(rangeId, members(r.getEffectiveMembers().getVotingMembers()),
          leads ? g.changingFrom : List.of());
    }
  }

  @Override
  public void addListener(dev.rangekv.server.consensus.GroupEvents listener) {
    events.add(listener);
  }

  @Override
  public java.util.OptionalLong currentTerm(long rangeId) {
    Group g = groups.get(rangeId);
    RaftTerm term = g == null || g.node == null ? null : g.node.getTerm();
    return term == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(term.getTerm());
  }

  private void start(Group g, RaftNode node) {
    g.node = node;
    g.machine.bind(() -> g.node);
    groups.put(g.rangeId, g);
    countMembers(g, node.getEffectiveMembers().getMembers()); // later changes come with reports
    g.machine.replica().opened(index -> g.log.terms.termAt(index));
    node.start();
  }

  /** Counts {@code g}'s members for the keep-alives, unless it closed meanwhile. */
  private void countMembers(Group g, java.util.Collection<RaftEndpoint> members) {
    Set<String> ids = new java.util.HashSet<>();
    members.forEach(e -> ids.add(NodeEndpoint.idOf(e)));
    peers.members(g.rangeId, ids, () -> groups.get(g.rangeId) == g);
  }

  private void openRestored(long rangeId) {
    Group g = newGroup(rangeId);
    Optional<RestoredRaftState> restored = g.log.restore(db);
    if (restored.isEmpty()) {
      throw new IllegalStateException("no Raft state stored for range " + rangeId);
    }
    start(g, builder(g).setRestoredState(restored.get()).build());
  }

  private void openFresh(long rangeId, List<Member> members) throws IOException {
    Group g = newGroup(rangeId);
    if (g.machine.replica().appliedIndex().isPresent() || g.machine.replica().load().map(p -> p.index() > 0).orElse(false)) {
      // a fresh log numbers entries from 1 again: over a store that applied entries already (a data
      // directory of the other engine, say) they would be taken as applied and skipped
      throw new IOException("range " + rangeId + " has applied entries in its store but no Raft log here:"
          + " refused (was this data directory written by the other engine?)");
    }
    remember(members);
    List<RaftEndpoint> endpoints = new ArrayList<>();
    members.forEach(m -> endpoints.add(new NodeEndpoint(m.nodeId())));
    start(g, builder(g).setLocalEndpoint(new NodeEndpoint(config.nodeId())).setInitialGroupMembers(endpoints).build());
  }

  @Override
  public String selfId() {
    return config.nodeId();
  }

  @Override
  public Set<Long> openRanges() {
    Set<Long> out = new java.util.HashSet<>(groups.keySet());
    out.addAll(joining.keySet());
    return out;
  }

  @Override
  public boolean isOpen(long rangeId) {
    return groups.containsKey(rangeId) || joining.containsKey(rangeId);
  }

  @Override
  public synchronized boolean create(long rangeId, List<Member> members) throws IOException {
    if (groups.containsKey(rangeId)) {
      return false;
    }
    if (GroupLog.exists(db, rangeId)) {
      throw new IOException("range " + rangeId + " has Raft state stored here from an earlier group");
    }
    openFresh(rangeId, members);
    return true;
  }

  @Override
  public synchronized void createEmpty(long rangeId) throws IOException {
    if (!groups.containsKey(rangeId)) {
      joining.putIfAbsent(rangeId, false);
    }
  }

  /**
   * A joining range's leader reached this node: fetch and install the range's span from it, then start
   * the group as the replica incarnation {@code self} the leader added, with the initial members it named
   * (MicroRaft replays the configuration changes from there). Entries up to the span's applied index are
   * then skipped at apply: the store has them. An incarnation not later than one destroyed here is
   * refused: its messages come from a leader that has not seen it removed (docs/architecture.md,
   * "Re-adding a replica").
   */
  private void join(long rangeId, String leader, List<String> initialMembers, NodeEndpoint self) {
    if (joining.replace(rangeId, false, true)) {
      Optional<NodeEndpoint> retired = GroupLog.retired(db, rangeId);
      if (!self.node().equals(config.nodeId()) || retired.map(r -> !self.laterThan(r)).orElse(false)) {
        log.info("replica refuses to join as an earlier incarnation rangeId={} leader={} endpoint={} retired={}",
            rangeId, leader, self, retired.map(NodeEndpoint::wire).orElse(""));
        joining.replace(rangeId, true, false);
        return;
      }
      log.info("replica joins its range rangeId={} leader={} endpoint={} initialMembers={}", rangeId, leader, self,
          initialMembers);
      RangeReplica fetcher = host.newReplica(rangeId);
      fetcher.fetchSpan(leader).thenAcceptAsync(span -> {
        fetcher.install(span);
        synchronized (this) {
          if (joining.remove(rangeId) != null && !groups.containsKey(rangeId)) {
            Group g = newGroup(rangeId);
            List<RaftEndpoint> endpoints = RaftCodec.endpoints(initialMembers);
            start(g, builder(g).setLocalEndpoint(self).setInitialGroupMembers(endpoints).build());
          }
        }
      }, joinExecutor).whenComplete((v, e) -> {
        if (e != null) {
          log.warn("replica could not join its range, waiting for the next request rangeId={} error={}", rangeId,
              e.toString());
          joining.replace(rangeId, true, false);
        }
      });
    }
  }

  @Override
  public synchronized void close(long rangeId) throws IOException {
    joining.remove(rangeId);
    Group g = groups.remove(rangeId);
    peers.closed(rangeId);
    if (g != null) {
      terminate(g);
    }
  }

  @Override
  public synchronized boolean reopen(long rangeId, List<Member> members) throws IOException {
    if (groups.containsKey(rangeId)) {
      return false;
    }
    if (GroupLog.exists(db, rangeId)) {
      openRestored(rangeId);
    } else {
      openFresh(rangeId, members);
    }
    return true;
  }

  @Override
  public synchronized void destroy(long rangeId) throws IOException {
    joining.remove(rangeId);
    Group g = groups.remove(rangeId);
    peers.closed(rangeId);
    if (g != null) {
      terminate(g);
    }
    try (LogBatch batch = db.newBatch()) {
      GroupLog.retire(db, batch, rangeId);
      GroupLog.deleteAll(batch, rangeId);
      db.write(batch, true);
    }
  }

  /** Stops a group's node and waits until its stripe wrote everything it had (its storage is then final). */
  private void terminate(Group g) throws IOException {
    events.lostLeadership(g.rangeId, "");
    g.stripe.submit(() -> quiescence.closed(g));
    try {
      g.stopAndDrain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted closing range " + g.rangeId, e);
    } catch (ExecutionException | TimeoutException e) {
      log.warn("range group did not stop cleanly rangeId={} error={}", g.rangeId, e.toString());
    } finally {
      g.machine.replica().closed();
    }
  }

  // ---- leadership and status ----

  @Override
  public Optional<Leadership> leadership(long rangeId) {
    Group g = groups.get(rangeId);
    if (g == null) {
      return joining.containsKey(rangeId) ? Optional.of(new Leadership(false, false, "")) : Optional.empty();
    }
    RaftTerm term = g.node.getTerm();
    String leader = term == null ? "" : NodeEndpoint.idOf(term.getLeaderEndpoint());
    boolean leads = config.nodeId().equals(leader);
    return Optional.of(new Leadership(leads, leads && g.machine.readyTerm() == term.getTerm(), leader));
  }

  @Override
  public Optional<GroupStatus> status(long rangeId) {
    Group g = groups.get(rangeId);
    if (g == null) {
      return Optional.empty();
    }
    return Optional.of(GroupStatusView.of(g, leadership(rangeId).orElseThrow(), config.nodeId(), this::members,
        id -> liveness.live(id, System.currentTimeMillis())));
  }

  private List<Member> members(java.util.Collection<RaftEndpoint> endpoints) {
    List<Member> out = new ArrayList<>(endpoints.size());
    for (RaftEndpoint e : endpoints) {
      String id = NodeEndpoint.idOf(e);
      out.add(new Member(id, raftAddresses.getOrDefault(id, "")));
    }
    return out;
  }

  /**
   * The group's quiet period plus the liveness epoch: both only grow, and a group's next quiet period is
   * a larger number, so the sum changes whenever either does (a quiesced leader's follower silences follow
   * its followers' nodes' liveness, {@link GroupStatusView}).
   */
  @Override
  public long quietStamp(long rangeId) {
    Group g = groups.get(rangeId);
    return g == null || !g.quiet ? 0 : g.quietPeriod + liveness.epoch();
  }

  // ---- proposals and reads ----

  @Override
  public CompletableFuture<CommandResult> propose(long rangeId, RangeCommand cmd) {
    Group g = groups.get(rangeId);
    if (g == null) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.NO_GROUP, "no group for range " + rangeId + " here", true));
    }
    Optional<ConsensusException> notLeader = notLeader(rangeId);
    if (notLeader.isPresent()) {
      return CompletableFuture.failedFuture(notLeader.get());
    }
    if (g.transferring) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.NOT_READY,
          "proposal refused: range " + rangeId + " is handing its leadership over", true));
    }
    Optional<RangeKvError> refused = g.machine.replica().admitProposal(cmd);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(refused.get()));
    }
    long start = System.nanoTime();
    CompletableFuture<Ordered<Object>> replicated = g.node.replicate(cmd);
    return replicated.orTimeout(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle((o, e) -> {
          proposalTimes.record(System.nanoTime() - start);
          if (e != null) {
            throw mapped(e, "proposal");
          }
          return (CommandResult) o.getResult();
        });
  }

  @Override
  public CompletableFuture<QueryResult> read(long rangeId, RangeQuery query) {
    Group g = groups.get(rangeId);
    if (g == null) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.NO_GROUP, "no group for range " + rangeId + " here", true));
    }
    CompletableFuture<Ordered<Object>> read = g.node.query(query, QueryPolicy.LINEARIZABLE, Optional.empty(),
        Optional.empty());
    return read.orTimeout(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle((o, e) -> {
          if (e != null) {
            throw mapped(e, "read");
          }
          return (QueryResult) o.getResult();
        });
  }

  private Optional<ConsensusException> notLeader(long rangeId) {
    Leadership l = leadership(rangeId).orElse(null);
    if (l == null) {
      return Optional.of(new ConsensusException(Kind.NO_GROUP, "no group for range " + rangeId + " here", true));
    }
    if (!l.leader()) {
      return Optional.of(new ConsensusException(Kind.NOT_LEADER, "not the leader of range " + rangeId, l.leaderId(), true));
    }
    return Optional.empty();
  }

  /** A MicroRaft failure in the node's terms; whether the entry certainly did not commit is kept. */
  static RuntimeException mapped(Throwable failure, String what) {
    Throwable c = failure;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof RangeKvException || c instanceof ConsensusException) {
      return (RuntimeException) c;
    }
    if (c instanceof NotLeaderException nl) {
      return new ConsensusException(Kind.NOT_LEADER, what + " refused: not the leader", NodeEndpoint.idOf(nl.getLeader()), true);
    }
    if (c instanceof CannotReplicateException) {
      return new ConsensusException(Kind.NOT_READY, what + " refused: too many entries pending", true);
    }
    if (c instanceof IndeterminateStateException) {
      return new ConsensusException(Kind.FAILED, what + " outcome unknown: " + c, false);
    }
    if (c instanceof TimeoutException) {
      return new ConsensusException(Kind.TIMED_OUT, what + " timed out", false);
    }
    if (c instanceof RaftException re) {
      return new ConsensusException(Kind.FAILED, what + " failed: " + re, NodeEndpoint.idOf(re.getLeader()), false);
    }
    return new ConsensusException(Kind.FAILED, what + " failed: " + c, false);
  }

  // ---- membership and leadership moves ({@link MembershipChanges}) ----

  @Override
  public CompletableFuture<Void> changeMembers(long rangeId, List<Member> current, List<Member> next, Duration timeout) {
    return membership.change(rangeId, current, next, timeout);
  }

  @Override
  public CompletableFuture<Boolean> transferLeadership(long rangeId, String target, Duration timeout) {
    return membership.transfer(rangeId, target, timeout);
  }

  /**
   * MicroRaft has no call to stand for election now, and needs none here: every replica of a group pre-votes
   * as its group starts, and a round lost because a peer had not opened the group yet is retried after the
   * election timeout, which this engine sets to the first-election timeout.
   */
  @Override
  public boolean campaign(long rangeId) {
    return false;
  }

  @Override
  public OptionalLong logTermAt(long rangeId, long index) {
    Group g = groups.get(rangeId);
    return g == null ? OptionalLong.empty() : g.log.terms.termAt(index);
  }

  // ---- transport ----

  /** An envelope from a peer: its messages are decoded here and handed to each stripe in one task. */
  private void receive(Envelope envelope) {
    liveness.heard(envelope.getFromNode(), System.currentTimeMillis());
    Map<Stripe, List<Object[]>> byStripe = new HashMap<>();
    // notices first: a leader's later messages of the same envelope (it woke meanwhile) come after them
    for (Quiesce q : envelope.getQuiescedList()) {
      Group g = groups.get(q.getRangeId());
      if (g != null) {
        byStripe.computeIfAbsent(g.stripe, s -> new ArrayList<>()).add(new Object[] {g, q});
      }
    }
    for (RaftMsg m : envelope.getMessagesList()) {
      Group g = groupOf(m.getRangeId());
      if (g == null) {
        if (m.getInitialMembersCount() > 0 && joining.containsKey(m.getRangeId())) {
          join(m.getRangeId(), NodeEndpoint.parse(m.getSender()).node(), m.getInitialMembersList(),
              NodeEndpoint.parse(m.getTarget()));
        } else if (m.getInitialMembersCount() > 0 && m.getRangeId() == MultiRaftMetaConsensus.GROUP_ID && meta != null) {
          meta.leaderReached(NodeEndpoint.parse(m.getSender()).node(), m.getInitialMembersList(),
              NodeEndpoint.parse(m.getTarget()));
        }
        continue; // a range this node does not run (yet, or any more): Raft retries or moves on
      }
      if (!m.getTarget().equals(NodeEndpoint.wireOf(g.node.getLocalEndpoint()))) {
        continue; // for another incarnation of this node's replica: one destroyed, or one not started yet
      }
      byStripe.computeIfAbsent(g.stripe, s -> new ArrayList<>()).add(new Object[] {g, RaftCodec.decode(m), m.getSender()});
    }
    byStripe.forEach((stripe, msgs) -> stripe.submit(() -> {
      long now = System.nanoTime();
      for (Object[] gm : msgs) {
        Group g = (Group) gm[0];
        if (groupOf(g.rangeId) != g) {
          continue;
        }
        if (gm[1] instanceof Quiesce q) {
          quiescence.noticed(g, envelope.getFromNode(), q);
        } else {
          g.log.heardFrom((String) gm[2], now); // its replica runs the group: no initial members to it for a while
          g.node.handle((io.microraft.model.message.RaftMessage) gm[1]); // wakes the group (StripeExecutor)
        }
      }
    }));
  }

  /** The group of {@code rangeId} here, the meta range's group included; null when none runs. */
  private Group groupOf(long rangeId) {
    Group g = groups.get(rangeId);
    MultiRaftMetaConsensus m = meta;
    return g == null && rangeId == MultiRaftMetaConsensus.GROUP_ID && m != null ? m.running() : g;
  }

  // ---- the meta range's group ({@link MultiRaftMetaConsensus}) ----

  /**
   * The meta range's group on this engine, made on the first call: reopened now when the log database holds
   * it ({@code opened} hears of each replica opened here), never quiesced. {@code continuations} runs what
   * follows its proposals and changes, off the stripes.
   */
  public synchronized dev.rangekv.server.consensus.MetaConsensus meta(
      java.util.function.Consumer<dev.rangekv.server.consensus.MetaConsensus.Opened> opened,
      java.util.concurrent.Executor continuations) {
    if (meta == null) {
      Duration unreachable = Duration.ofSeconds(2 * raftConfig.getLeaderHeartbeatTimeoutSecs());
      MultiRaftMetaConsensus m = new MultiRaftMetaConsensus(new MultiRaftMetaConsensus.Parts(config.nodeId(), db,
          stripeOf(MultiRaftMetaConsensus.GROUP_ID), raftConfig, new Quiescence(liveness, HEARTBEAT_PERIOD.toMillis(),
          false), this::remember, this::connected, unreachable, config.requestTimeout(), opened, continuations));
      meta = m; // first: a reopened group's messages find it
      m.openStored();
    }
    return meta;
  }

  /**
   * Every node this node shares a group with, and every node it knows an address of: a replica that
   * joined by a move (the only one of its node, say) learned its peers from the group, not from an open
   * with members, and its leader's node must hear from it, or its quiesced followers count as silent.
   * Read from sets kept as groups open, close and change members ({@link GroupPeers}), not by walking
   * every group's members each period.
   */
  private Set<String> keepAliveTargets() {
    Set<String> nodes = peers.nodes();
    if (nodes.containsAll(raftAddresses.keySet())) {
      return nodes;
    }
    Set<String> all = new java.util.HashSet<>(nodes);
    all.addAll(raftAddresses.keySet());
    return all;
  }

  /**
   * How often a leader hears from each live follower of an idle range: a follower silent for longer
   * missed a heartbeat (the dormancy ticker waits for answers to recent ones).
   */
  public Duration heartbeatPeriod() {
    return HEARTBEAT_PERIOD;
  }

  /** Whether this node's channel to {@code nodeId} is connected now (true when it cannot tell). */
  private boolean connected(String nodeId) {
    Optional<String> address = host.addressOf(nodeId);
    return address.isEmpty() || !(host.channel(address.get()) instanceof io.grpc.ManagedChannel c)
        || c.getState(false) == io.grpc.ConnectivityState.READY;
  }

  private void remember(List<Member> members) {
    try (LogBatch batch = db.newBatch()) {
      boolean changed = false;
      for (Member m : members) {
        if (!m.raftAddress().equals(raftAddresses.put(m.nodeId(), m.raftAddress()))) {
          batch.put(LogKeys.address(m.nodeId()), m.raftAddress().getBytes(StandardCharsets.UTF_8));
          changed = true;
        }
      }
      if (changed) {
        db.write(batch, false);
      }
    }
  }

  private void loadAddresses() {
    db.scan(new byte[] {LogKeys.ADDRESS}, new byte[] {LogKeys.ADDRESS + 1}, (k, v) -> {
      raftAddresses.put(new String(k, 1, k.length - 1, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8));
      return true;
    });
  }

  /** Stops every group (storage kept), the stripes, the streams and the log database. */
  @Override
  public synchronized void close() {
    if (meta != null) {
      meta.stop();
    }
    for (Group g : List.copyOf(groups.values())) {
      groups.remove(g.rangeId);
      peers.closed(g.rangeId);
      try {
        g.node.terminate().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.debug("range group did not stop cleanly rangeId={} error={}", g.rangeId, e.toString());
      }
      g.machine.replica().closed();
    }
    for (Stripe s : stripes) {
      try {
        s.stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    streams.close();
    db.close();
    log.info("multi-raft engine stopped nodeId={}", config.nodeId());
  }

  /** Applies {@code fn} to the group of {@code rangeId}, for tests that look inside. */
  <T> Optional<T> inspect(long rangeId, Function<Group, T> fn) {
    return Optional.ofNullable(groups.get(rangeId)).map(fn);
  }
}
