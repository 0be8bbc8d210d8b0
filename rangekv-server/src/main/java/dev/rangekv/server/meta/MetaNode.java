package dev.rangekv.server.meta;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.meta.controller.Controller;
import dev.rangekv.meta.controller.ControllerLoop;
import dev.rangekv.meta.controller.MetaNodeServiceImpl;
import dev.rangekv.meta.controller.MetaServiceImpl;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.ReportedRange;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.HeartbeatResponse;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.meta.RegisterNodeRequest;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.MetaConsensus;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's part in the meta range. Every node heartbeats to the meta leader and answers meta calls:
 * with the meta service when it hosts a meta replica (the controller then ticks here, acting only while
 * this replica leads), with a redirect to the meta leader otherwise. The meta replica appears when the
 * group is created ({@link #createGroup}) or reopened from disk at start (the engine hands it over
 * through {@link #opened}).
 */
public final class MetaNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetaNode.class);
  private static final int STALE_ANSWERS_TO_LEAVE = 3;
  private final String nodeId;
  private final ControllerConfig config;
  private final long moveBytesPerSecond;
  private final PeerChannels channels;
  /** The time of day of the controller's ticks and of the stamps on meta entries: the node's wall clock. */
  private final LongSupplier wallClock;
  private final MetaLocator locator;
  private final ScheduledExecutorService scheduler;
  private final ServerServiceDefinition redirect;
  private final ServerServiceDefinition nodeRedirect;
  private volatile MetaConsensus consensus;
  private volatile Hosted hosted;
  /** The meta voters' client addresses from the last heartbeat answer: the seeds may all be gone. */
  private volatile List<String> learnedVoters = List.of();
  /** {@code System.nanoTime()} of the last heartbeat the meta leader answered; 0 before the first. */
  private volatile long lastAnswerNanos;
  private Runnable onLeftMeta = () -> {};
  private volatile java.util.function.Consumer<List<String>> votersLearned = v -> {};
  private HeartbeatLoop heartbeats;

  /** The meta replica hosted here, with the controller and service running on it. */
  private record Hosted(MetaGroup group, Controller controller, ControllerLoop loop, ServerServiceDefinition service,
      ServerServiceDefinition nodeService) {}

  public MetaNode(String nodeId, ControllerConfig config, long moveBytesPerSecond, PeerChannels channels,
      Supplier<List<String>> seeds, LongSupplier wallClock) {
    this.nodeId = nodeId;
    this.wallClock = wallClock;
    this.moveBytesPerSecond = moveBytesPerSecond;
    this.config = config;
    this.channels = channels;
    this.locator = new MetaLocator(channels, () -> {
      List<String> out = new java.util.ArrayList<>(seeds.get());
      learnedVoters.stream().filter(a -> !out.contains(a)).forEach(out::add);
      return out;
    });
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "rangekv-" + nodeId + "-meta"));
    this.redirect = MetaRedirect.service(() -> locator.leaderAddress().orElse(""));
    this.nodeRedirect = MetaRedirect.service(MetaNodeServiceGrpc.getServiceDescriptor(),
        () -> locator.leaderAddress().orElse(""));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** The engine opened a meta replica here (at start or on create): {@link #host} hosts it. */
  public synchronized void opened(MetaConsensus.Opened replica) {
    pending = replica;
  }

  private MetaConsensus.Opened pending;
  /** Heartbeat answers in a row that showed this node's replica as a stale voter (heartbeat thread only). */
  private int staleAnswers;
  /**
   * Set when this node was prepared as a new voter, until an answer lists it as one: its replica starts
   * with the configuration it is joining, which the answers show only once the change commits.
   */
  private volatile boolean joining;

  /**
   * Seeds this node with meta voter addresses it learned in an earlier run, and has {@code onChange} called
   * with each new list learned from a heartbeat answer (the node keeps them in its data directory: a
   * restarted node whose seeds and meta replica are gone still finds the meta range). Call before start.
   */
  public void rememberVoters(List<String> known, java.util.function.Consumer<List<String>> onChange) {
    this.learnedVoters = List.copyOf(known);
    this.votersLearned = onChange;
  }

  /** The service to register with the node's gRPC server (switches to the hosted one when it exists). */
  public ServerServiceDefinition service() {
    return MetaServiceSwitch.service(() -> {
      Hosted h = hosted;
      return h != null ? h.service() : redirect;
    });
  }

  /** The nodes' meta service (registration, heartbeats, reports) to register likewise. */
  public ServerServiceDefinition nodeService() {
    return MetaServiceSwitch.service(MetaNodeServiceGrpc.getServiceDescriptor(), () -> {
      Hosted h = hosted;
      return h != null ? h.nodeService() : nodeRedirect;
    });
  }

  /**
   * Starts heartbeats and, if a meta replica was reopened from disk, its controller.
   *
   * @param onLeftMeta called after this node's meta replica was removed (it is no longer a voter)
   */
  public void start(MetaConsensus consensus, Supplier<HeartbeatRequest> heartbeat, Runnable onLeftMeta) {
    this.consensus = consensus;
    this.onLeftMeta = onLeftMeta;
    host();
    heartbeats = new HeartbeatLoop(heartbeat, locator, config.tickMillis(), this::onHeartbeatAnswer);
    heartbeats.start(scheduler);
  }

  /**
   * Remembers where the meta voters are, and removes a stale meta replica: a node whose voter was
   * replaced while it was down reopens one. It goes once the meta leader's answer shows this node is no
   * voter while the replica's own configuration says it is one, in three answers in a row (a replica
   * being added starts with the configuration it joins, which the answers show once the change commits,
   * so it never leaves while {@link #joining}; answers built a moment before a change can lag it too).
   */
  private void onHeartbeatAnswer(HeartbeatResponse answer) {
    lastAnswerNanos = System.nanoTime();
    if (answer.getMetaVoterAddressesCount() > 0) {
      List<String> voters = List.copyOf(answer.getMetaVoterAddressesList());
      if (!voters.equals(learnedVoters)) {
        learnedVoters = voters;
        votersLearned.accept(voters);
      }
    }
    if (answer.getMetaVoterNodeIdsList().contains(nodeId)) {
      joining = false;
    }
    Hosted h = hosted;
    if (h == null || joining || answer.getMetaVoterNodeIdsCount() == 0 || answer.getMetaVoterNodeIdsList().contains(nodeId)
        || h.group().isLeader() || !h.group().voterIds().contains(nodeId)) {
      staleAnswers = 0;
      return;
    }
    // A joining voter can see itself in the configuration the leader just appended while an answer the
    // leader built a moment before still lists the old voters; only a stale replica sees it answer after
    // answer.
    if (++staleAnswers >= STALE_ANSWERS_TO_LEAVE) {
      staleAnswers = 0;
      leave(h, answer.getMetaVoterNodeIdsList());
    }
  }

  private synchronized void leave(Hosted h, List<String> voters) {
    if (hosted != h) {
      return;
    }
    removeReplica(h, "stale");
    onLeftMeta.run();
    log.info("meta replica removed: no longer a meta voter nodeId={} voters={}", nodeId, voters);
  }

  /** Stops hosting {@code h} (may be null) and removes the meta group here with its directory. */
  private void removeReplica(Hosted h, String why) {
    hosted = null;
    pending = null;
    if (h != null) {
      h.loop().close();
    }
    try {
      consensus.destroy();
    } catch (IOException | RuntimeException e) {
      log.warn("removing the {} meta replica failed nodeId={} error={}", why, nodeId, e.toString());
    }
  }

  /**
   * Starts a meta replica here for the meta leader to add as a voter, with {@code voters} (the
   * configuration it is being added to) as its peers: a replica started with no configuration may not
   * catch up (it stopped on its first election timeout), which left the change to the new voters unable
   * to finish. A meta replica of an earlier run that the engine closed on its own is removed first: the leader prepares only nodes it adds, so this node is no voter and nothing of that
   * replica is needed. (An empty log cannot win an election, and pre-vote keeps it from disturbing one.)
   */
  public void prepareReplica(List<Member> voters) throws IOException {
    // not under this object's lock: adding the group has the engine call opened, which takes it
    removeIfClosed();
    removeIfReplaced();
    joining = true;
    if (!consensus.prepare(voters)) {
      log.info("meta replica exists already nodeId={}", nodeId);
    }
    host();
  }

  /**
   * Removes a meta replica this node still holds when its engine cannot re-add it: the leader prepares only
   * nodes it adds, so the replica is from an earlier membership (a node that comes back after it was
   * removed as dead, say), and left running it would keep the new one from starting.
   */
  private synchronized void removeIfReplaced() {
    if (consensus.replacesReplicaOnPrepare() && (hosted != null || pending != null)) {
      log.info("an earlier meta replica is removed before this node is added again nodeId={}", nodeId);
      removeReplica(hosted, "earlier");
    }
  }

  private synchronized void removeIfClosed() {
    if (consensus.closedByEngine()) {
      log.warn("a closed meta replica is removed before this node is prepared again nodeId={}", nodeId);
      removeReplica(hosted, "closed");
    }
  }


  /** Creates the meta group here with {@code peers} (this node among them): the bootstrap of a cluster. */
  public void createGroup(List<Member> peers) throws IOException {
    if (!consensus.create(peers)) {
      log.info("meta group exists already nodeId={}", nodeId);
    }
    host();
  }

  private synchronized void host() {
    if (hosted != null || pending == null) {
      return;
    }
    MetaGroup group = pending.group();
    // the controller calls nodes through their admin API over this node's channels (TLS, cluster id)
    Controller controller = new Controller(group, channels::channel, config, StepTimeouts.DEFAULTS,
        moveBytesPerSecond, wallClock);
    ControllerLoop loop = new ControllerLoop(controller, wallClock);
    MetaServiceImpl service = new MetaServiceImpl(group, controller, wallClock, scheduler);
    pending.onApplied(service::mapChanged); // WatchRanges pushes each applied map change
    MetaNodeServiceImpl nodeService = new MetaNodeServiceImpl(group, controller, wallClock);
    hosted = new Hosted(group, controller, loop, service.bindService(), nodeService.bindService());
    loop.start();
    log.info("meta replica hosted nodeId={}", nodeId);
  }


  /**
   * True when the meta leader answered one of this node's heartbeats within {@code window}: the meta
   * range is reachable from here (what a readiness check asks).
   */
  public boolean metaAnsweredWithin(Duration window) {
    long last = lastAnswerNanos;
    return last != 0 && System.nanoTime() - last <= window.toNanos();
  }

  /** How often this node heartbeats (the controller's tick). */
  public Duration tick() {
    return Duration.ofMillis(config.tickMillis());
  }

  /** The controller of this node's meta replica, when it hosts one (it acts only while the replica leads). */
  public Optional<Controller> controller() {
    Hosted h = hosted;
    return h == null ? Optional.empty() : Optional.of(h.controller());
  }

  /** This node's meta replica, when it hosts one. */
  public Optional<MetaGroup> group() {
    Hosted h = hosted;
    return h == null ? Optional.empty() : Optional.of(h.group());
  }

  /**
   * On the meta leader (waiting up to {@code timeout} for this replica to lead): installs the first map
   * of a new cluster; ignored by the meta range when it has a map already.
   */
  public void bootstrap(List<ReportedRange> ranges, List<NodeInfo> nodes, Duration timeout)
      throws IOException {
    MetaGroup group = group().orElseThrow(() -> new IllegalStateException("node " + nodeId + " hosts no meta replica"));
    long end = System.nanoTime() + timeout.toNanos();
    while (!group.isLeader()) {
      if (System.nanoTime() > end) {
        throw new IOException("the meta replica on " + nodeId + " did not become leader within " + timeout);
      }
      sleep(20);
    }
    MetaChange change = new MetaChange.Bootstrap(ranges, nodes, wallClock.getAsLong());
    try {
      group.propose(change).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("bootstrapping the meta range failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while bootstrapping the meta range", e);
    }
  }

  /** Registers this node with the cluster's meta range (through any seed), retrying up to {@code timeout}. */
  public void register(NodeRecord self, Duration timeout) {
    locator.report(s -> s.registerNode(RegisterNodeRequest.newBuilder().setNode(self).build()), timeout);
  }

  /** Runs a read on the meta leader (following its hints), waiting up to {@code timeout}: the console's calls. */
  public <T> T read(java.util.function.Function<dev.rangekv.proto.MetaServiceGrpc.MetaServiceBlockingStub, T> call,
                    Duration timeout) {
    return locator.call(call, timeout);
  }

  /** Range ids for this node's splits, granted by the meta leader; the blocking calls run on {@code executor}. */
  public MetaRangeIds rangeIds(java.util.concurrent.Executor executor) {
    return new MetaRangeIds(locator, executor);
  }

  /** The meta leader's client address as this node last saw it. */
  public Optional<String> metaLeaderAddress() {
    return locator.leaderAddress();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    if (heartbeats != null) {
      heartbeats.close();
    }
    Hosted h = hosted;
    if (h != null) {
      h.loop().close();
    }
    scheduler.shutdownNow();
  }
}
