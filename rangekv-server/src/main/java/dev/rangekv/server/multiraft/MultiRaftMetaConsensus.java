package dev.rangekv.server.multiraft;

import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaLimits;
import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.ConsensusException.Kind;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.MetaConsensus;
import dev.rangekv.storage.raftlog.LogBatch;
import dev.rangekv.storage.raftlog.LogDb;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftNodeStatus;
import io.microraft.persistence.RestoredRaftState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta range's group on the multi-raft engine: one more MicroRaft node on a stripe of the engine, its
 * log, term and vote in the node's log database under group id {@link #GROUP_ID} (no range has it), its
 * messages in the same envelopes on the same streams as the ranges'. The log database remembers its
 * voters across restarts (the initial members, then the configuration entries), so the engine reopens
 * it at start. A replica being added ({@link #prepare}) starts its group only when the leader's first
 * message names the group's initial members, as a range's replica being added does. The group never
 * quiesces: the controller proposes on its ticks and its leadership must stay fresh (a quiesced leader
 * would keep calling itself leader while its followers elect another). Thread-safe.
 */
final class MultiRaftMetaConsensus implements MetaConsensus {
  private static final Logger log = LoggerFactory.getLogger(MultiRaftMetaConsensus.class);
  /** The meta range's group id in the engine (range ids start at 1: {@code core.rangemap.RangeIds}). */
  static final long GROUP_ID = 0;

  /**
   * What the meta group takes of its engine.
   *
   * @param quiescence a disabled one: the meta group runs its timers always
   * @param remember records members' Raft addresses before they are named to MicroRaft
   * @param opened hears of each meta replica opened here (at start, on create, on prepare)
   * @param continuations runs the continuations of proposals and changes (never the stripe)
   */
  record Parts(String selfId, LogDb db, Stripe stripe, RaftConfig raftConfig, Quiescence quiescence,
      Consumer<List<Member>> remember, java.util.function.Predicate<String> connected, Duration unreachableLimit,
      Duration requestTimeout, Consumer<MetaConsensus.Opened> opened, Executor continuations) {}

  /** This node's meta replica: its state machine, and its group once started (null until then). */
  private final class Replica implements MetaConsensus.Opened {
    final MetaMachine machine = new MetaMachine(MetaLimits.defaults());
    final MultiRaftMetaGroup group;
    volatile Group running;

    Replica() {
      MembershipChanges membership = new MembershipChanges(id -> id == GROUP_ID ? running : null,
          id -> MultiRaftMetaConsensus.this.notLeader(), parts.remember(), parts.connected(),
          parts.unreachableLimit());
      this.group = new MultiRaftMetaGroup(parts.selfId(), machine, () -> {
        Group g = running;
        return g == null ? null : g.node;
      }, membership, parts.requestTimeout(), parts.continuations());
    }

    @Override
    public MetaGroup group() {
      return group;
    }

    @Override
    public void onApplied(Runnable listener) {
      machine.onApplied(listener);
    }
  }

  private final Parts parts;
  private volatile Replica replica;
  /** Prepared to be added: the group starts on the leader's first message. */
  private volatile boolean joining;

  MultiRaftMetaConsensus(Parts parts) {
    this.parts = parts;
  }

  /** Reopens the meta group the log database holds, if any (at the engine's start). */
  synchronized void openStored() {
    if (replica == null && GroupLog.exists(parts.db(), GROUP_ID)) {
      Replica r = new Replica();
      parts.opened().accept(r);
      replica = r;
      startRestored(r);
    }
  }

  /** The meta group running here, for the engine's receive path; null when none. */
  Group running() {
    Replica r = replica;
    return r == null ? null : r.running;
  }

  @Override
  public synchronized boolean create(List<Member> voters) throws IOException {
    if (replica != null && replica.running != null) {
      return false;
    }
    if (GroupLog.exists(parts.db(), GROUP_ID)) {
      openStored();
      return false;
    }
    parts.remember().accept(voters);
    Replica r = replica != null ? replica : new Replica();
    if (replica == null) {
      parts.opened().accept(r);
      replica = r;
    }
    joining = false;
    start(r, voters.stream().map(m -> (RaftEndpoint) new NodeEndpoint(m.nodeId())).toList(),
        new NodeEndpoint(parts.selfId()));
    log.info("meta group created nodeId={} voters={}", parts.selfId(), voters.stream().map(Member::nodeId).toList());
    return true;
  }

  /**
   * An empty replica for the meta leader to add: its group starts when the leader's first message names
   * the group's initial members (MicroRaft replays the configuration changes after them); {@code voters}
   * only teach the engine their addresses.
   */
  @Override
  public synchronized boolean prepare(List<Member> voters) throws IOException {
    if (replica != null) {
      return false;
    }
    if (GroupLog.exists(parts.db(), GROUP_ID)) {
      openStored();
      return false;
    }
    parts.remember().accept(voters);
    Replica r = new Replica();
    parts.opened().accept(r);
    replica = r;
    joining = true;
    log.info("meta replica prepared, waiting for the meta leader nodeId={}", parts.selfId());
    return true;
  }

  /**
   * A message of the meta leader reached this node, which runs no meta group: a prepared replica starts as
   * the incarnation {@code self} the leader added, unless that is not later than one destroyed here
   * (docs/architecture.md, "Re-adding a replica").
   */
  synchronized void leaderReached(String leader, List<String> initialMembers, NodeEndpoint self) {
    Replica r = replica;
    if (!joining || r == null || r.running != null) {
      return;
    }
    Optional<NodeEndpoint> retired = GroupLog.retired(parts.db(), GROUP_ID);
    if (!self.node().equals(parts.selfId()) || retired.map(old -> !self.laterThan(old)).orElse(false)) {
      log.info("meta replica refuses to join as an earlier incarnation leader={} endpoint={} retired={}", leader,
          self, retired.map(NodeEndpoint::wire).orElse(""));
      return;
    }
    joining = false;
    log.info("meta replica joins the meta range leader={} endpoint={} initialMembers={}", leader, self,
        initialMembers);
    start(r, RaftCodec.endpoints(initialMembers), self);
  }

  @Override
  public boolean replacesReplicaOnPrepare() {
    return true; // a re-added node is a new incarnation: an earlier one's replica drops its messages
  }

  @Override
  public synchronized void destroy() throws IOException {
    joining = false;
    Replica r = replica;
    replica = null;
    if (r != null && r.running != null) {
      terminate(r.running);
    }
    try (LogBatch batch = parts.db().newBatch()) {
      GroupLog.retire(parts.db(), batch, GROUP_ID);
      GroupLog.deleteAll(batch, GROUP_ID);
      parts.db().write(batch, true);
    }
    log.info("meta group removed nodeId={}", parts.selfId());
  }

  @Override
  public boolean closedByEngine() {
    Group g = running();
    return g != null && RaftNodeStatus.isTerminal(g.node.getStatus());
  }

  /** Stops the meta group keeping its storage (the engine stops). */
  synchronized void stop() {
    Replica r = replica;
    if (r != null && r.running != null) {
      try {
        r.running.node.terminate().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.debug("meta group did not stop cleanly error={}", e.toString());
      }
    }
  }

  private Optional<ConsensusException> notLeader() {
    Replica r = replica;
    if (r == null || r.running == null) {
      return Optional.of(new ConsensusException(Kind.NO_GROUP, "no meta group here", true));
    }
    if (!r.group.isLeader()) {
      return Optional.of(new ConsensusException(Kind.NOT_LEADER, "not the meta leader",
          r.group.leaderNodeId().orElse(""), true));
    }
    return Optional.empty();
  }

  private void startRestored(Replica r) {
    Group g = newGroup();
    Optional<RestoredRaftState> restored = g.log.restore(parts.db());
    if (restored.isEmpty()) {
      throw new IllegalStateException("no Raft state stored for the meta range");
    }
    run(r, g, builder(g, r).setRestoredState(restored.get()).build());
    log.info("meta group reopened nodeId={}", parts.selfId());
  }

  private void start(Replica r, List<RaftEndpoint> initialMembers, NodeEndpoint self) {
    Group g = newGroup();
    run(r, g, builder(g, r).setLocalEndpoint(self).setInitialGroupMembers(initialMembers).build());
  }

  private Group newGroup() {
    // no RangeMachine: the meta range's machine is the replica's MetaMachine
    return new Group(GROUP_ID, parts.stripe(), new GroupLog(GROUP_ID, parts.stripe()), null);
  }

  private RaftNode.RaftNodeBuilder builder(Group g, Replica r) {
    return RaftNode.newBuilder().setGroupId(GROUP_ID).setConfig(parts.raftConfig())
        .setExecutor(new StripeExecutor(g, parts.quiescence())).setStore(g.log)
        .setTransport(new GroupTransport(g.stripe, g.log)).setStateMachine(r.machine)
        .setRaftNodeReportListener(report -> g.report = report);
  }

  private static void run(Replica r, Group g, RaftNode node) {
    g.node = node;
    r.machine.bind(() -> g.node);
    r.running = g;
    node.start();
  }

  /** Stops the group's node and waits until its stripe wrote everything it had (its storage is then final). */
  private static void terminate(Group g) throws IOException {
    try {
      g.stopAndDrain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted closing the meta group", e);
    } catch (ExecutionException | TimeoutException e) {
      log.warn("meta group did not stop cleanly error={}", e.toString());
    }
  }
}
