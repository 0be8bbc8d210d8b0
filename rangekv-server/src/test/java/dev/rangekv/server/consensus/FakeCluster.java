package dev.rangekv.server.consensus;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.replica.LogPoint;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.StagedSpan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * A deterministic, single-threaded world of Raft groups behind the consensus seam, for unit tests of the
 * operations built on it. Nothing runs until the test calls {@link #run}: it delivers replication
 * messages in order of an injected clock ({@link #now}, advanced only by the run), with delays, drops
 * and leader changes drawn from one seed, commits an entry once a majority of the members hold it
 * (only entries of the leader's term, as Raft does), and applies committed entries on every member in
 * log order through the member node's {@link RangeReplica}. Every future an engine returns completes
 * inside {@link #run} on the test's thread.
 *
 * <p>What it leaves out, on purpose: elections are decided here (the most up-to-date open member wins),
 * not voted; a membership change switches to the new members in one step once they are caught up (the
 * joint phase is not modelled); logs are never compacted, so a member catches up by replay, except a
 * replica opened empty (one being added), which first installs the leader's span snapshot through its
 * node's span fetch. Not thread-safe.
 */
public final class FakeCluster {
  /** Seeded fault rates: a message dropped, its delay, a leader change per delivered message. */
  public record Faults(double dropRate, int maxDelayMillis, double leaderChangeRate) {
    public static final Faults NONE = new Faults(0, 0, 0);
  }

  /** How often a leader re-sends what a follower lacks. */
  static final long HEARTBEAT_MILLIS = 50;
  private static final int MAX_STEPS = 1_000_000;

  private final SplittableRandom random;
  private final Faults faults;
  private long now;
  private long sequence;
  private final Map<String, FakeEngine> engines = new LinkedHashMap<>();
  private final Map<Long, Group> groups = new TreeMap<>();
  private final PriorityQueue<Delivery> queue =
      new PriorityQueue<>(Comparator.comparingLong(Delivery::at).thenComparingLong(Delivery::seq));

  public FakeCluster(long seed, Faults faults) {
    this.random = new SplittableRandom(seed);
    this.faults = faults;
  }

  /** The injected clock, in milliseconds. */
  public long now() {
    return now;
  }

  /** Moves the injected clock on by {@code millis} (nothing is delivered meanwhile: call {@link #run}). */
  public void advance(long millis) {
    now += millis;
  }

  /** Adds a node whose range groups get their replicas from {@code replicas} (its directory). */
  public FakeEngine node(String nodeId, LongFunction<RangeReplica> replicas) {
    FakeEngine engine = new FakeEngine(this, nodeId, replicas);
    engines.put(nodeId, engine);
    return engine;
  }

  /** The leader of {@code rangeId}'s group; empty when it has none now. */
  public String leaderOf(long rangeId) {
    Group g = groups.get(rangeId);
    return g == null ? "" : g.leader;
  }

  /** The term of {@code rangeId}'s group: one more for each election it had (0: never led). */
  public long term(long rangeId) {
    return group(rangeId).term;
  }

  /** The index of the last entry of {@code rangeId}'s log on its leader (0: empty). */
  public long lastIndex(long rangeId) {
    return group(rangeId).log.size();
  }

  /** How many commands of {@code rangeId}'s log are appended but not committed (no-ops left out). */
  public int uncommitted(long rangeId) {
    Group g = group(rangeId);
    int n = 0;
    for (long i = g.commit; i < g.log.size(); i++) {
      if (g.log.get((int) i).cmd() != null) {
        n++;
      }
    }
    return n;
  }

  /** The entries of {@code rangeId}'s log that committed, in order (no-ops left out). */
  public List<RangeCommand> committed(long rangeId) {
    Group g = group(rangeId);
    List<RangeCommand> out = new ArrayList<>();
    for (int i = 0; i < g.commit; i++) {
      if (g.log.get(i).cmd() != null) {
        out.add(g.log.get(i).cmd());
      }
    }
    return out;
  }

  /** Makes {@code nodeId} the leader of {@code rangeId} now (its log must be the most up to date). */
  public void electLeader(long rangeId, String nodeId) {
    Group g = group(rangeId);
    if (!g.open.contains(nodeId) || g.match(nodeId) < g.maxMatch()) {
      throw new IllegalArgumentException(nodeId + " cannot win an election of range " + rangeId);
    }
    elect(g, nodeId);
  }

  /** Runs until no message is in flight and every open member holds the leader's log. */
  public void run() {
    for (int step = 0; step < MAX_STEPS; step++) {
      electWhereLeaderless();
      Delivery next = queue.poll();
      if (next == null) {
        if (!heartbeat()) {
          return;
        }
        continue;
      }
      now = Math.max(now, next.at());
      deliver(next);
      if (faults.leaderChangeRate() > 0 && random.nextDouble() < faults.leaderChangeRate()) {
        Group g = groups.get(next.rangeId());
        if (g != null) {
          List<String> candidates = g.upToDate();
          if (!candidates.isEmpty()) {
            elect(g, candidates.get(random.nextInt(candidates.size())));
          }
        }
      }
      expireChanges();
    }
    throw new IllegalStateException("the fake cluster did not settle in " + MAX_STEPS + " steps");
  }

  // ---- the engines call these ----

  Group group(long rangeId) {
    Group g = groups.get(rangeId);
    if (g == null) {
      throw new IllegalStateException("no group of range " + rangeId);
    }
    return g;
  }

  Optional<Group> groupIfAny(long rangeId) {
    return Optional.ofNullable(groups.get(rangeId));
  }

  Group groupOrNew(long rangeId, List<Member> members) {
    return groups.computeIfAbsent(rangeId, id -> new Group(id, members));
  }

  FakeEngine engine(String nodeId) {
    return engines.get(nodeId);
  }

  /** Appends {@code cmd} on the leader; the future completes when the leader applied it. */
  CompletableFuture<CommandResult> append(Group g, RangeCommand cmd) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    g.log.add(new Entry(g.term, cmd));
    g.waiting.put((long) g.log.size(), result);
    replicate(g);
    advanceCommit(g); // a group of one commits on append: no follower's answer will
    return result;
  }

  void changeMembers(Group g, List<Member> next, CompletableFuture<Void> done, long timeoutMillis) {
    g.change = new Change(List.copyOf(next), done, now + timeoutMillis);
    replicate(g);
    tryFinishChange(g);
  }

  void scheduleElection(Group g, String target) {
    elect(g, target);
  }

  /** A member opened its replica (a create, a reopen); storage kept means its log is kept too. */
  void opened(Group g, String nodeId, boolean keptLog) {
    g.open.add(nodeId);
    if (!keptLog) {
      g.matches.put(nodeId, 0L);
      g.applied.put(nodeId, 0L);
    }
    if (!g.leader.isEmpty()) {
      replicate(g);
    }
  }

  void closed(Group g, String nodeId, boolean keepLog) {
    g.open.remove(nodeId);
    if (!keepLog) {
      g.matches.put(nodeId, 0L);
      g.applied.put(nodeId, 0L);
    }
    if (g.leader.equals(nodeId)) {
      stepDown(g, "");
    }
  }

  // ---- the world ----

  private void electWhereLeaderless() {
    for (Group g : groups.values()) {
      if (g.leader.isEmpty() && g.openMajority()) {
        List<String> candidates = g.upToDate();
        elect(g, candidates.get(random.nextInt(candidates.size())));
      }
    }
  }

  private void elect(Group g, String nodeId) {
    stepDown(g, nodeId);
    // the new leader's log is the group's: entries only others held are gone (what it holds is read
    // before it leads: a leader's match is the whole log, a closed leader's entries included)
    long keep = g.match(nodeId);
    g.term++;
    g.leader = nodeId;
    while (g.log.size() > keep) {
      g.log.remove(g.log.size() - 1);
    }
    for (String m : g.memberIds()) {
      g.matches.put(m, Math.min(g.match(m), keep));
    }
    // a new leader commits an entry of its own term before it serves (Raft's no-op)
    g.log.add(new Entry(g.term, null));
    g.readyAt = g.log.size();
    g.matches.put(nodeId, (long) g.log.size());
    engines.get(nodeId).events.becameLeader(g.rangeId);
    replicate(g);
    advanceCommit(g);
  }

  /** The leader goes; what it still awaited has an unknown outcome now (it may commit later). */
  private void stepDown(Group g, String hint) {
    if (g.leader.isEmpty()) {
      return;
    }
    g.matches.put(g.leader, (long) g.log.size());
    engines.get(g.leader).events.lostLeadership(g.rangeId, hint);
    g.leader = "";
    List<CompletableFuture<CommandResult>> failed = new ArrayList<>(g.waiting.values());
    g.waiting.clear();
    failed.forEach(f -> f.completeExceptionally(new ConsensusException(ConsensusException.Kind.NOT_LEADER,
        "leadership changed", hint, false)));
    if (g.change != null) {
      Change c = g.change;
      g.change = null;
      c.done().completeExceptionally(new ConsensusException(ConsensusException.Kind.FAILED,
          "set configuration failed: leadership changed", false));
    }
  }

  private void replicate(Group g) {
    if (g.leader.isEmpty()) {
      return;
    }
    for (String m : g.targets()) {
      if (!m.equals(g.leader) && g.open.contains(m) && g.match(m) < g.log.size()) {
        send(g, m);
      }
    }
  }

  private void send(Group g, String to) {
    if (faults.dropRate() > 0 && random.nextDouble() < faults.dropRate()) {
      return; // lost: the next heartbeat sends it again
    }
    long delay = faults.maxDelayMillis() == 0 ? 0 : random.nextInt(faults.maxDelayMillis() + 1);
    queue.add(new Delivery(now + delay, sequence++, g.rangeId, to, g.log.size(), g.term));
  }

  /** Re-sends to every lagging member; false when nothing lags (the world has settled). */
  private boolean heartbeat() {
    boolean lagging = false;
    for (Group g : groups.values()) {
      if (g.leader.isEmpty()) {
        continue;
      }
      for (String m : g.targets()) {
        if (!m.equals(g.leader) && g.open.contains(m) && g.match(m) < g.log.size()) {
          lagging = true;
        }
      }
      lagging |= g.change != null;
    }
    if (lagging) {
      now += HEARTBEAT_MILLIS;
      groups.values().forEach(this::replicate);
      expireChanges();
    }
    return lagging;
  }

  private void deliver(Delivery d) {
    Group g = groups.get(d.rangeId());
    if (g == null || g.term != d.term() || g.leader.isEmpty() || !g.open.contains(d.to())) {
      return; // stale: sent by an earlier leader, or to a replica closed since
    }
    g.matches.put(d.to(), Math.max(g.match(d.to()), Math.min(d.upTo(), g.log.size())));
    advanceCommit(g);
    tryFinishChange(g);
  }

  private void advanceCommit(Group g) {
    List<Long> held = new ArrayList<>();
    for (String m : g.memberIds()) {
      held.add(g.match(m)); // a closed member keeps what it stored
    }
    held.sort(Comparator.reverseOrder());
    long majority = held.get(held.size() / 2);
    if (majority > g.commit && g.log.get((int) majority - 1).term() == g.term) {
      g.commit = majority;
    }
    applyCommitted(g);
  }

  private void applyCommitted(Group g) {
    for (String m : new ArrayList<>(g.open)) {
      RangeReplica replica = engines.get(m).replica(g.rangeId).orElse(null);
      if (replica != null && engines.get(m).awaitingSpan(g.rangeId)) {
        installSpan(g, m, replica);
      }
      long upTo = Math.min(g.match(m), g.commit);
      while (replica != null && g.applied.getOrDefault(m, 0L) < upTo && replica.descriptor().isPresent()) {
        long index = g.applied.getOrDefault(m, 0L) + 1;
        Entry e = g.log.get((int) index - 1);
        CommandResult result = e.cmd() == null ? null : replica.apply(Optional.of(e.cmd()), e.term(), index);
        replica.appliedTo(index);
        g.applied.put(m, index);
        if (m.equals(g.leader)) {
          CompletableFuture<CommandResult> waiter = g.waiting.remove(index);
          if (waiter != null) {
            waiter.complete(result);
          }
        }
      }
    }
  }

  /**
   * A replica opened empty takes the leader's span snapshot before any entry, as the real engine has it
   * do (an added replica's range may hold data no log entry here carries: a split child's). A fetch that
   * fails is asked again at the next delivery or heartbeat.
   */
  private void installSpan(Group g, String m, RangeReplica replica) {
    if (g.leader.isEmpty() || g.leader.equals(m)) {
      return;
    }
    CompletableFuture<StagedSpan> fetched = replica.fetchSpan(g.leader);
    if (!fetched.isDone() || fetched.isCompletedExceptionally()) {
      return;
    }
    LogPoint point = replica.install(fetched.join());
    replica.load(); // the engine reinitializes its state machine after an install
    replica.appliedTo(point.index());
    g.applied.put(m, Math.max(g.applied.getOrDefault(m, 0L), point.index()));
    g.matches.put(m, Math.max(g.match(m), point.index()));
    engines.get(m).spanInstalled(g.rangeId);
  }

  private void tryFinishChange(Group g) {
    Change c = g.change;
    if (c == null || g.leader.isEmpty()) {
      return;
    }
    for (Member m : c.next()) {
      if (!g.open.contains(m.nodeId()) || g.match(m.nodeId()) < g.log.size()) {
        return;
      }
    }
    g.members = c.next();
    g.change = null;
    // every new member holds the configuration now; the leader applies it even when it leaves
    Set<String> told = new java.util.TreeSet<>(g.memberIds());
    told.add(g.leader);
    for (String m : told) {
      if (g.open.contains(m)) {
        engines.get(m).events.configurationApplied(g.rangeId, g.members, List.of());
      }
    }
    advanceCommit(g);
    c.done().complete(null);
  }

  private void expireChanges() {
    for (Group g : groups.values()) {
      Change c = g.change;
      if (c != null && now > c.deadline()) {
        g.change = null;
        c.done().completeExceptionally(new ConsensusException(ConsensusException.Kind.TIMED_OUT,
            "set configuration timed out", false));
      }
    }
  }

  record Entry(long term, RangeCommand cmd) {}

  record Delivery(long at, long seq, long rangeId, String to, long upTo, long term) {}

  record Change(List<Member> next, CompletableFuture<Void> done, long deadline) {}

  /** One range's group: its members, leader, log, and how far each member holds and applied it. */
  static final class Group {
    final long rangeId;
    List<Member> members;
    final Set<String> open = new HashSet<>();
    String leader = "";
    long term;
    long readyAt = Long.MAX_VALUE;
    final List<Entry> log = new ArrayList<>();
    final Map<String, Long> matches = new HashMap<>();
    final Map<String, Long> applied = new HashMap<>();
    long commit;
    final Map<Long, CompletableFuture<CommandResult>> waiting = new HashMap<>();
    Change change;

    Group(long rangeId, List<Member> members) {
      this.rangeId = rangeId;
      this.members = List.copyOf(members);
    }

    List<String> memberIds() {
      return members.stream().map(Member::nodeId).toList();
    }

    /** The members, plus those a change is catching up. */
    List<String> targets() {
      List<String> out = new ArrayList<>(memberIds());
      if (change != null) {
        change.next().stream().map(Member::nodeId).filter(id -> !out.contains(id)).forEach(out::add);
      }
      return out;
    }

    long match(String nodeId) {
      return nodeId.equals(leader) ? log.size() : matches.getOrDefault(nodeId, 0L);
    }

    long maxMatch() {
      return memberIds().stream().filter(open::contains).mapToLong(this::match).max().orElse(0);
    }

    boolean openMajority() {
      return memberIds().stream().filter(open::contains).count() > members.size() / 2;
    }

    /** The open members whose log is the longest (the ones that could win an election). */
    List<String> upToDate() {
      long max = maxMatch();
      return memberIds().stream().filter(open::contains).filter(m -> match(m) == max).sorted().toList();
    }

    boolean ready() {
      return !leader.isEmpty() && commit >= readyAt;
    }
  }
}
