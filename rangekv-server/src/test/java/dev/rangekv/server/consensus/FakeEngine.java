package dev.rangekv.server.consensus;

import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.consensus.ConsensusException.Kind;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * One node's {@link RangeConsensus} in a {@link FakeCluster}: opens its replicas of range groups and
 * answers every call from the cluster's shared state, as the node's engine would. Not thread-safe (the
 * cluster is single-threaded).
 */
public final class FakeEngine implements RangeConsensus {
  private final FakeCluster cluster;
  private final String nodeId;
  private final LongFunction<RangeReplica> newReplica;
  private final Map<Long, RangeReplica> replicas = new HashMap<>();
  /** Ranges whose group was closed with its storage kept (a dormant range). */
  private final Set<Long> kept = new HashSet<>();
  /** Ranges opened empty here (a replica being added): the leader's span snapshot comes first. */
  private final Set<Long> awaitingSpan = new HashSet<>();
  /** The quiet stamps tests gave ranges ({@link #quiet}); none: awake. */
  private final Map<Long, Long> quietStamps = new HashMap<>();
  /** The cluster reports this node's leadership and configuration changes here. */
  final GroupEventHub events = new GroupEventHub();

  FakeEngine(FakeCluster cluster, String nodeId, LongFunction<RangeReplica> newReplica) {
    this.cluster = cluster;
    this.nodeId = nodeId;
    this.newReplica = newReplica;
  }

  Optional<RangeReplica> replica(long rangeId) {
    return Optional.ofNullable(replicas.get(rangeId));
  }

  @Override
  public String selfId() {
    return nodeId;
  }

  @Override
  public Set<Long> openRanges() {
    return Set.copyOf(replicas.keySet());
  }

  @Override
  public boolean create(long rangeId, List<Member> members) {
    if (replicas.containsKey(rangeId)) {
      return false;
    }
    open(cluster.groupOrNew(rangeId, members), false);
    return true;
  }

  @Override
  public void createEmpty(long rangeId) {
    if (!replicas.containsKey(rangeId)) {
      awaitingSpan.add(rangeId);
      open(cluster.group(rangeId), false);
    }
  }

  /** True while this node's replica of {@code rangeId} was opened empty and has installed no span. */
  boolean awaitingSpan(long rangeId) {
    return awaitingSpan.contains(rangeId);
  }

  void spanInstalled(long rangeId) {
    awaitingSpan.remove(rangeId);
  }

  private void open(FakeCluster.Group g, boolean keptLog) {
    RangeReplica replica = newReplica.apply(g.rangeId);
    replica.load();
    replicas.put(g.rangeId, replica);
    replica.opened(index -> logTermAt(g.rangeId, index));
    cluster.opened(g, nodeId, keptLog);
  }

  @Override
  public void close(long rangeId) {
    RangeReplica replica = replicas.remove(rangeId);
    if (replica != null) {
      replica.closed();
      kept.add(rangeId);
      cluster.closed(cluster.group(rangeId), nodeId, true);
    }
  }

  @Override
  public boolean reopen(long rangeId, List<Member> members) {
    if (replicas.containsKey(rangeId)) {
      return false;
    }
    open(cluster.groupOrNew(rangeId, members), kept.remove(rangeId));
    return true;
  }

  @Override
  public void destroy(long rangeId) {
    RangeReplica replica = replicas.remove(rangeId);
    kept.remove(rangeId);
    awaitingSpan.remove(rangeId);
    if (replica != null) {
      replica.closed();
      cluster.closed(cluster.group(rangeId), nodeId, false);
    }
  }

  /** Has {@link #quietStamp} answer {@code stamp} for {@code rangeId} (0: awake), as a quiescing engine would. */
  public void quiet(long rangeId, long stamp) {
    quietStamps.put(rangeId, stamp);
  }

  @Override
  public long quietStamp(long rangeId) {
    return replicas.containsKey(rangeId) ? quietStamps.getOrDefault(rangeId, 0L) : 0;
  }

  @Override
  public Optional<Leadership> leadership(long rangeId) {
    if (!replicas.containsKey(rangeId)) {
      return Optional.empty();
    }
    FakeCluster.Group g = cluster.group(rangeId);
    boolean leader = g.leader.equals(nodeId);
    return Optional.of(new Leadership(leader, leader && g.ready(), g.leader));
  }

  @Override
  public Optional<GroupStatus> status(long rangeId) {
    Optional<Leadership> l = leadership(rangeId);
    if (l.isEmpty()) {
      return Optional.empty();
    }
    FakeCluster.Group g = cluster.group(rangeId);
    long held = g.match(nodeId);
    Map<String, Long> silence = new HashMap<>();
    Map<String, Long> commits = new HashMap<>();
    List<Long> matches = new java.util.ArrayList<>();
    if (l.get().leader()) {
      for (String m : g.memberIds()) {
        commits.put(m, Math.min(g.match(m), g.commit));
        if (!m.equals(nodeId)) {
          matches.add(g.match(m));
          silence.put(m, g.open.contains(m) ? 0L : Long.MAX_VALUE);
        }
      }
    }
    long lastTerm = held == 0 ? 0 : g.log.get((int) held - 1).term();
    return Optional.of(new GroupStatus(l.get(), !l.get().leader() && !g.leader.isEmpty(), g.term,
        g.applied.getOrDefault(nodeId, 0L), Math.min(held, g.commit), new GroupStatus.LogPosition(lastTerm, held),
        g.change == null ? g.members : g.change.next(), g.change == null ? List.of() : g.members, false, matches,
        silence, commits, false)); // a change in flight shows as a joint configuration (new and previous members)
  }

  private Optional<ConsensusException> notLeader(long rangeId) {
    if (!replicas.containsKey(rangeId)) {
      return Optional.of(new ConsensusException(Kind.NO_GROUP, "no group here", true));
    }
    FakeCluster.Group g = cluster.group(rangeId);
    if (!g.leader.equals(nodeId)) {
      return Optional.of(new ConsensusException(Kind.NOT_LEADER, "not leader", g.leader, true));
    }
    return Optional.empty();
  }

  @Override
  public CompletableFuture<CommandResult> propose(long rangeId, RangeCommand cmd) {
    Optional<ConsensusException> refused = notLeader(rangeId);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get());
    }
    // the replica's check before the entry is appended, as the leader's engine runs it
    Optional<RangeKvError> admission = replicas.get(rangeId).admitProposal(cmd);
    if (admission.isPresent()) {
      return CompletableFuture.failedFuture(new RangeKvException(admission.get()));
    }
    return cluster.append(cluster.group(rangeId), cmd);
  }

  @Override
  public CompletableFuture<QueryResult> read(long rangeId, RangeQuery query) {
    Optional<ConsensusException> refused = notLeader(rangeId);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get());
    }
    FakeCluster.Group g = cluster.group(rangeId);
    if (!g.ready() || g.applied.getOrDefault(nodeId, 0L) < g.commit) {
      // a read index needs an entry of the leader's term committed and applied here first
      return CompletableFuture.failedFuture(new ConsensusException(Kind.NOT_READY, "leader not ready", true));
    }
    return CompletableFuture.completedFuture(replicas.get(rangeId).serve(query));
  }

  @Override
  public CompletableFuture<Void> changeMembers(long rangeId, List<Member> current, List<Member> next,
      Duration timeout) {
    Optional<ConsensusException> refused = notLeader(rangeId);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get());
    }
    FakeCluster.Group g = cluster.group(rangeId);
    if (!Set.copyOf(g.members).equals(Set.copyOf(current)) || g.change != null) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.FAILED,
          "set configuration failed: the configuration is not " + current, true));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    cluster.changeMembers(g, next, done, timeout.toMillis());
    return done;
  }

  @Override
  public CompletableFuture<Boolean> transferLeadership(long rangeId, String target, Duration timeout) {
    Optional<ConsensusException> refused = notLeader(rangeId);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get());
    }
    FakeCluster.Group g = cluster.group(rangeId);
    if (!g.open.contains(target) || g.match(target) < g.log.size()) {
      return CompletableFuture.failedFuture(new ConsensusException(Kind.FAILED,
          "transfer leadership failed: " + target + " is not caught up", false));
    }
    cluster.scheduleElection(g, target);
    return CompletableFuture.completedFuture(true);
  }

  @Override
  public boolean campaign(long rangeId) {
    if (!replicas.containsKey(rangeId)) {
      return false;
    }
    FakeCluster.Group g = cluster.group(rangeId);
    if (!g.leader.isEmpty() || !g.upToDate().contains(nodeId) || !g.openMajority()) {
      return false;
    }
    cluster.electLeader(rangeId, nodeId);
    return true;
  }

  @Override
  public void addListener(GroupEvents listener) {
    events.add(listener);
  }

  @Override
  public OptionalLong logTermAt(long rangeId, long index) {
    FakeCluster.Group g = cluster.groupIfAny(rangeId).orElse(null);
    if (g == null || index < 1 || index > g.match(nodeId)) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(g.log.get((int) index - 1).term());
  }
}
