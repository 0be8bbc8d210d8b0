package dev.rangekv.server.multiraft;

import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.ConsensusException.Kind;
import dev.rangekv.server.consensus.Member;
import io.microraft.MembershipChangeMode;
import io.microraft.report.RaftGroupMembers;
import io.microraft.report.RaftNodeReport;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership changes and leadership transfers of the range groups this node leads, on MicroRaft's terms:
 * members change one at a time (each arrival a learner, caught up, promoted; then the removals), a failed
 * change takes its learners out again, and a transfer first lets the group's log drain (MicroRaft hands
 * over only with every appended entry committed). Thread-safe; steps run on the group's stripe.
 */
final class MembershipChanges {
  private static final Logger log = LoggerFactory.getLogger(MembershipChanges.class);

  private final LongFunction<Group> groups;
  private final LongFunction<Optional<ConsensusException>> notLeader;
  private final Consumer<List<Member>> remember;
  private final Predicate<String> connected;
  private final Duration unreachableLimit;

  /**
   * @param groups this node's group of a range; null when it runs none
   * @param notLeader why this node cannot change a range's group (no group, not its leader); empty when it can
   * @param remember records members' Raft addresses before they are named to MicroRaft
   * @param connected whether this node holds a live connection to a node now
   * @param unreachableLimit how long an arriving learner's node may stay unconnected before its change fails
   */
  MembershipChanges(LongFunction<Group> groups, LongFunction<Optional<ConsensusException>> notLeader,
      Consumer<List<Member>> remember, Predicate<String> connected, Duration unreachableLimit) {
    this.groups = groups;
    this.notLeader = notLeader;
    this.remember = remember;
    this.connected = connected;
    this.unreachableLimit = unreachableLimit;
  }

  /** {@link MultiRaftEngine#changeMembers}: learner, catch-up and promotion per arrival, then removals. */
  CompletableFuture<Void> change(long rangeId, List<Member> current, List<Member> next, Duration timeout) {
    Group g = groups.apply(rangeId);
    Optional<ConsensusException> notLeader = this.notLeader.apply(rangeId);
    if (g == null || notLeader.isPresent()) {
      return CompletableFuture.failedFuture(notLeader.orElseThrow());
    }
    RaftGroupMembers now = g.node.getCommittedMembers();
    Set<String> voting = new LinkedHashSet<>(RaftCodec.nodeIds(now.getVotingMembers()));
    Set<String> expected = new LinkedHashSet<>(current.stream().map(Member::nodeId).toList());
    if (!voting.equals(expected)) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.FAILED,
          "set configuration failed: the configuration is " + voting + ", not " + expected, true));
    }
    if (!g.changingFrom.isEmpty()) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.NOT_READY,
          "set configuration refused: range " + rangeId + " is changing its members", true));
    }
    remember.accept(next);
    g.changingFrom = List.copyOf(current);
    Set<String> target = new LinkedHashSet<>(next.stream().map(Member::nodeId).toList());
    // MicroRaft changes one member at a time: every arriving replica is added as a learner, caught up and
    // promoted before any leaving one is removed, so the voter count grows by one per replica on the way.
    // Each arrival is a new replica incarnation ({@link #arrival}), whether or not its node was a member before.
    CompletableFuture<Long> chain = CompletableFuture.completedFuture(now.getLogIndex());
    for (String add : target) {
      if (!voting.contains(add)) {
        chain = chain.thenCompose(idx -> withoutLearnerOn(g, add, idx)).thenCompose(idx -> {
          NodeEndpoint arriving = arrival(g, add, idx);
          return step(g, arriving, MembershipChangeMode.ADD_LEARNER, idx)
              .thenCompose(i -> caughtUp(g, arriving, i, System.nanoTime() + timeout.toNanos(), System.nanoTime()))
              .thenCompose(i -> step(g, arriving, MembershipChangeMode.ADD_OR_PROMOTE_TO_FOLLOWER, i));
        });
      }
    }
    for (String remove : voting) {
      if (!target.contains(remove)) {
        chain = chain.thenCompose(idx -> step(g, member(g, remove), MembershipChangeMode.REMOVE_MEMBER, idx));
      }
    }
    List<String> arrivals = target.stream().filter(id -> !voting.contains(id)).toList();
    return chain.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle((v, e) -> e == null ? CompletableFuture.<Void>completedFuture(null) : failed(g, arrivals, e))
        .thenCompose(f -> f)
        .whenComplete((v, e) -> g.changingFrom = List.of());
  }

  /**
   * The endpoint of a replica arriving on {@code node} by an add based on the committed membership at
   * {@code membersIndex}: this leader's term and that index. No two adds of a node that can reach it share
   * one: an add appended in a term either commits (the committed membership moves past {@code
   * membersIndex}) or is lost with that term's leadership (a later add is in a later term). So a re-added
   * replica is never an endpoint MicroRaft knows (it refuses to add one of its initial members again) and
   * a destroyed incarnation's messages are never taken for the new one's.
   */
  private static NodeEndpoint arrival(Group g, String node, long membersIndex) {
    io.microraft.report.RaftTerm term = g.node.getTerm();
    return new NodeEndpoint(node, term == null ? 0 : term.getTerm(), membersIndex);
  }

  /**
   * Removes a learner left on {@code node} by an earlier failed change whose cleanup failed too: the arrival
   * on that node is a new endpoint, and the old one would stay a member nobody runs.
   */
  private CompletableFuture<Long> withoutLearnerOn(Group g, String node, long membersIndex) {
    RaftGroupMembers committed = g.node.getCommittedMembers();
    for (io.microraft.RaftEndpoint e : committed.getMembers()) {
      if (NodeEndpoint.idOf(e).equals(node) && !committed.getVotingMembers().contains(e)) {
        return step(g, (NodeEndpoint) e, MembershipChangeMode.REMOVE_MEMBER, membersIndex);
      }
    }
    return CompletableFuture.completedFuture(membersIndex);
  }

  /** The endpoint by which {@code node}'s replica is a member of the group now ({@code node}'s first one if none). */
  private static NodeEndpoint member(Group g, String node) {
    for (io.microraft.RaftEndpoint e : g.node.getEffectiveMembers().getMembers()) {
      if (NodeEndpoint.idOf(e).equals(node)) {
        return (NodeEndpoint) e;
      }
    }
    return new NodeEndpoint(node);
  }

  /** Fails a change with {@code failure} once its arrivals that are still learners were removed. */
  private CompletableFuture<Void> failed(Group g, List<String> arrivals, Throwable failure) {
    return withoutLearners(g, arrivals).handle((x, cleanup) -> {
      if (cleanup != null) {
        log.warn("range kept a learner of a failed membership change rangeId={} error={}", g.rangeId,
            cleanup.toString());
      }
      throw MultiRaftEngine.mapped(failure, "set configuration");
    });
  }

  /**
   * After a failed change: removes those of {@code arrivals} that are still learners (a replica that never
   * caught up, its node down, say). Left in, a learner is a member no voter counts, yet the range then
   * always has a non-voter (it never goes dormant) and the next add of that node finds it a member already;
   * the caller's abort only looks at voters.
   */
  private CompletableFuture<Void> withoutLearners(Group g, List<String> arrivals) {
    RaftGroupMembers committed = g.node.getCommittedMembers();
    CompletableFuture<Long> chain = CompletableFuture.completedFuture(committed.getLogIndex());
    for (io.microraft.RaftEndpoint e : committed.getMembers()) {
      if (arrivals.contains(NodeEndpoint.idOf(e)) && !committed.getVotingMembers().contains(e)) {
        chain = chain.thenCompose(idx -> step(g, (NodeEndpoint) e, MembershipChangeMode.REMOVE_MEMBER, idx));
      }
    }
    return chain.thenApply(idx -> null);
  }

  private CompletableFuture<Long> step(Group g, NodeEndpoint replica, MembershipChangeMode mode, long expectedIndex) {
    long start = System.nanoTime();
    return g.node.changeMembership(replica, mode, expectedIndex)
        .thenApply(o -> {
          // the time from a promotion's start to the removal's commit is the four-voter window (README)
          log.info("range membership step committed rangeId={} node={} endpoint={} mode={} millis={} voters={}",
              g.rangeId, replica.node(), replica.wire(), mode, (System.nanoTime() - start) / 1_000_000,
              RaftCodec.ids(o.getResult().getVotingMembers()));
          return o.getResult().getLogIndex();
        });
  }

  /**
   * Completes once the learner {@code node} matched the leader's commit index (polled from reports). Fails
   * once its node stayed unconnected for the unreachable limit ({@code connectedAt}: when it last was):
   * a learner says nothing while it fetches the range's span, so its silence alone cannot tell a long fetch
   * from a dead node, and without this a change to a killed node waited for the whole catch-up timeout
   * (MoveIT.killingTheTargetMidMove_abortsTheMove_andTheRangeKeepsServing).
   */
  private CompletableFuture<Long> caughtUp(Group g, NodeEndpoint learner, long membersIndex, long deadline,
      long connectedAt) {
    String node = learner.node();
    return g.node.getReport().thenCompose(o -> {
      RaftNodeReport r = o.getResult();
      Long match = r.getLog().getFollowerMatchIndices().get(learner);
      if (match != null && match >= r.getLog().getCommitIndex()) {
        return CompletableFuture.completedFuture(membersIndex);
      }
      long now = System.nanoTime();
      if (now > deadline) {
        return CompletableFuture.failedFuture(new ConsensusException(Kind.TIMED_OUT,
            "learner " + node + " did not catch up on range " + g.rangeId, false));
      }
      long seen = connected.test(node) ? now : connectedAt;
      if (now - seen > unreachableLimit.toNanos()) {
        return CompletableFuture.failedFuture(new ConsensusException(Kind.FAILED,
            "learner " + node + " of range " + g.rangeId + " unreachable for " + (now - seen) / 1_000_000 + " ms", true));
      }
      return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS))
          .thenCompose(x -> caughtUp(g, learner, membersIndex, deadline, seen));
    });
  }

  /** {@link MultiRaftEngine#transferLeadership}, once the group's log drained. */
  CompletableFuture<Boolean> transfer(long rangeId, String target, Duration timeout) {
    Group g = groups.apply(rangeId);
    Optional<ConsensusException> notLeader = this.notLeader.apply(rangeId);
    if (g == null || notLeader.isPresent()) {
      return CompletableFuture.failedFuture(notLeader.orElseThrow());
    }
    // MicroRaft transfers only once every appended entry is committed, checks that once a heartbeat period
    // (1 s) and gives up at the heartbeat timeout (2 s): under steady writes the first check always found
    // entries in flight and the transfer timed out. So proposals stop here first and the log drains.
    g.transferring = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    return drained(g, deadline)
        .thenCompose(x -> g.node.transferLeadership(member(g, target)))
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle((o, e) -> {
          g.transferring = false;
          if (e != null) {
            throw MultiRaftEngine.mapped(e, "transfer leadership");
          }
          return true;
        });
  }

  /** Completes once the group's commit index reached its last entry (polled from reports). */
  private CompletableFuture<Void> drained(Group g, long deadline) {
    return g.node.getReport().thenCompose(o -> {
      RaftNodeReport r = o.getResult();
      if (r.getLog().getCommitIndex() >= r.getLog().getLastLogOrSnapshotIndex()) {
        return CompletableFuture.completedFuture(null);
      }
      if (System.nanoTime() > deadline) {
        return CompletableFuture.failedFuture(new ConsensusException(Kind.TIMED_OUT,
            "range " + g.rangeId + " did not commit its entries before a leadership transfer", false));
      }
      return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS))
          .thenCompose(x -> drained(g, deadline));
    });
  }
}
