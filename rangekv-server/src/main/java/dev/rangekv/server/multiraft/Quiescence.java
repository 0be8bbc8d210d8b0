package dev.rangekv.server.multiraft;

import dev.rangekv.proto.multiraft.Quiesce;
import io.microraft.RaftNodeStatus;
import io.microraft.RaftRole;
import io.microraft.RaftEndpoint;
import io.microraft.impl.RaftNodeImpl;
import io.microraft.impl.state.FollowerState;
import io.microraft.impl.state.LeaderState;
import io.microraft.impl.state.RaftState;
import io.microraft.impl.task.HeartbeatTask;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Quiescence of idle range groups, as CockroachDB quiesces idle ranges: MicroRaft heartbeats every group
 * every period (and publishes a report of it every other), which costs a node about 2% of a core per 1,000
 * awake ranges. A leader whose group has stayed calm for {@link #CALM_TICKS} heartbeat ticks (nothing
 * uncommitted or unsynced, every follower caught up and answering, no membership change, transfer or
 * query under way) stops heartbeating and tells its followers; a follower whose log and commit index
 * match the leader's then quiesces too. A quiesced group runs no timer: MicroRaft's periodic tasks are
 * held here until it wakes, and its followers take the leader's node being live ({@link NodeLiveness},
 * one keep-alive per peer node instead of one heartbeat per range) for the leader being live.
 * Any Raft message for the group, a proposal, a read, a membership change or a transfer wakes it; so
 * does its leader's node going unheard, and its followers then elect a new leader as after a missed
 * heartbeat (MicroRaft's heartbeat task runs at once and finds the leader's heartbeats timed out).
 * The hooks recognise implementation classes of MicroRaft 0.7 (its heartbeat task, its state): the
 * version is pinned, and {@code MultiRaftEngineIT} checks that idle groups quiesce, wake and fail over.
 * A follower trusts a live leader node for a live leader group: a leader's group that closed while its
 * node kept running (no such path is known: moves, merges and dormancy run through the group awake) would
 * leave its quiesced followers waiting until a message or a request wakes them.
 * Every method runs on the group's stripe thread (MicroRaft schedules its tasks from there).
 */
final class Quiescence {
  static final int HEARTBEAT = 1;
  static final int REPORT = 2;
  /** Calm heartbeat ticks in a row before a leader quiesces: the last ones carried the final commit index. */
  static final int CALM_TICKS = 3;

  private final NodeLiveness liveness;
  private final long heartbeatPeriodMillis;
  private final boolean enabled;
  /** The last quiet period handed out ({@link Group#quietPeriod}); stripes quiesce groups concurrently. */
  private static final java.util.concurrent.atomic.AtomicLong PERIODS = new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param enabled false: groups never quiesce (every group heartbeats every period, as MicroRaft does)
   */
  Quiescence(NodeLiveness liveness, long heartbeatPeriodMillis, boolean enabled) {
    this.liveness = liveness;
    this.heartbeatPeriodMillis = heartbeatPeriodMillis;
    this.enabled = enabled;
  }

  boolean enabled() {
    return enabled;
  }

  /** MicroRaft schedules one of its periodic tasks (the heartbeat task or the report task) of {@code g}. */
  void schedule(Group g, Runnable task, long delay, TimeUnit unit) {
    boolean heartbeat = task instanceof HeartbeatTask;
    if (heartbeat) {
      g.heartbeatTask = task;
    } else {
      g.reportTask = task;
    }
    g.stripe.schedule(() -> due(g, task, heartbeat), delay, unit);
  }

  private void due(Group g, Runnable task, boolean heartbeat) {
    if (g.quiet) {
      g.held |= heartbeat ? HEARTBEAT : REPORT;
      return;
    }
    if (heartbeat && enabled && calmLeader(g)) {
      quiesceLeader(g);
      g.held |= HEARTBEAT;
      return;
    }
    task.run();
  }

  /** At a heartbeat tick of a leader: whether its group has been calm for {@link #CALM_TICKS} ticks now. */
  private boolean calmLeader(Group g) {
    long now = System.currentTimeMillis();
    long previousTick = g.lastTickMillis;
    g.lastTickMillis = now;
    RaftNodeImpl node = (RaftNodeImpl) g.node;
    RaftState s = node.state();
    LeaderState leading = s.leaderState();
    long last = s.log().lastLogOrSnapshotIndex();
    boolean calm = node.getStatus() == RaftNodeStatus.ACTIVE && s.role() == RaftRole.LEADER && leading != null
        && !g.transferring && s.leadershipTransferState() == null
        && s.commitIndex() == last && leading.flushedLogIndex() >= last
        && s.committedGroupMembers().getLogIndex() == s.effectiveGroupMembers().getLogIndex()
        && leading.queryState().queryCount() == 0;
    if (calm) {
      for (Map.Entry<RaftEndpoint, FollowerState> f : leading.getFollowerStates().entrySet()) {
        // each follower holds the whole log and answered since the last tick (so it heard the commit index)
        if (f.getValue().matchIndex() != last || f.getValue().responseTimestamp() < previousTick
            || !liveness.live(NodeEndpoint.idOf(f.getKey()), now)) {
          calm = false;
          break;
        }
      }
    }
    if (!calm || g.calmIndex != last || g.calmTerm != s.term()) {
      g.calmIndex = calm ? last : -1;
      g.calmTerm = s.term();
      g.calmTicks = calm ? 1 : 0;
      return false;
    }
    return ++g.calmTicks >= CALM_TICKS;
  }

  private void quiesceLeader(Group g) {
    RaftState s = ((RaftNodeImpl) g.node).state();
    quiet(g);
    g.quietLeader = null;
    Quiesce notice = Quiesce.newBuilder().setRangeId(g.rangeId).setTerm(s.term())
        .setLastIndex(s.log().lastLogOrSnapshotIndex()).build();
    for (RaftEndpoint f : s.leaderState().getFollowerStates().keySet()) {
      g.stripe.notice(NodeEndpoint.idOf(f), notice);
    }
  }

  /** Quiesces {@code g}; its status is read from the report taken now until it wakes (GroupStatusView). */
  private static void quiet(Group g) {
    g.node.getReport().thenAccept(r -> g.report = r.getResult()); // on the stripe: at once
    g.quietPeriod = PERIODS.incrementAndGet();
    g.quiet = true;
  }

  /** The leader {@code from} quiesced the group: this replica follows when it holds what the leader holds. */
  void noticed(Group g, String from, Quiesce notice) {
    if (!enabled || g.quiet) {
      return;
    }
    RaftNodeImpl node = (RaftNodeImpl) g.node;
    RaftState s = node.state();
    RaftEndpoint leader = s.leader();
    if (node.getStatus() == RaftNodeStatus.ACTIVE && (s.role() == RaftRole.FOLLOWER || s.role() == RaftRole.LEARNER)
        && s.term() == notice.getTerm() && leader != null && NodeEndpoint.idOf(leader).equals(from)
        && s.preCandidateState() == null && s.log().lastLogOrSnapshotIndex() == notice.getLastIndex()
        && s.commitIndex() == notice.getLastIndex()) {
      quiet(g);
      g.quietLeader = from;
      g.stripe.quietFollowers.computeIfAbsent(from, n -> new HashSet<>()).add(g);
    }
  }

  /**
   * Wakes a quiesced group before a message, a request or a step reaches it. The timestamps MicroRaft
   * keeps of the last heartbeat (a follower's of its leader, a leader's of each follower's answer) stood
   * still while it slept: those of a peer whose node is live are brought to now, as a heartbeat would have,
   * so the leader does not step down and a follower does not grant a vote against a live leader.
   */
  void wake(Group g) {
    if (!g.quiet) {
      return;
    }
    unquiet(g);
    RaftNodeImpl node = (RaftNodeImpl) g.node;
    RaftState s = node.state();
    long now = node.getClock().millis();
    LeaderState leading = s.leaderState();
    if (leading != null) {
      for (Map.Entry<RaftEndpoint, FollowerState> f : leading.getFollowerStates().entrySet()) {
        if (liveness.live(NodeEndpoint.idOf(f.getKey()), now)) {
          f.getValue().responseReceived(Long.MIN_VALUE, now);
        }
      }
    } else if (s.leader() != null && liveness.live(NodeEndpoint.idOf(s.leader()), now)) {
      node.leaderHeartbeatReceived();
    }
    resume(g, heartbeatPeriodMillis);
  }

  /**
   * Wakes the quiesced followers on this stripe whose leader's node went unheard: their heartbeat task
   * runs at once and, the leader's heartbeats being timed out, starts a pre-vote. Runs on the stripe's
   * timer every keep-alive period.
   */
  void checkLeaders(Stripe stripe) {
    if (stripe.quietFollowers.isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    for (Iterator<Map.Entry<String, Set<Group>>> it = stripe.quietFollowers.entrySet().iterator(); it.hasNext();) {
      Map.Entry<String, Set<Group>> e = it.next();
      if (!liveness.live(e.getKey(), now)) {
        it.remove();
        for (Group g : List.copyOf(e.getValue())) {
          g.quietLeader = null; // already out of the map
          unquiet(g);
          resume(g, 0);
        }
      }
    }
  }

  /** The group is closing: it leaves the watch lists, and nothing held runs again. */
  void closed(Group g) {
    unquiet(g);
    g.held = 0;
  }

  private void unquiet(Group g) {
    g.quiet = false;
    g.calmTicks = 0;
    g.calmIndex = -1;
    if (g.quietLeader != null) {
      Set<Group> set = g.stripe.quietFollowers.get(g.quietLeader);
      if (set != null) {
        set.remove(g);
        if (set.isEmpty()) {
          g.stripe.quietFollowers.remove(g.quietLeader);
        }
      }
      g.quietLeader = null;
    }
  }

  /** Schedules the periodic tasks that came due while quiet (those still pending find the group awake). */
  private void resume(Group g, long heartbeatDelayMillis) {
    int held = g.held;
    g.held = 0;
    if ((held & HEARTBEAT) != 0) {
      schedule(g, g.heartbeatTask, heartbeatDelayMillis, TimeUnit.MILLISECONDS);
    }
    if ((held & REPORT) != 0) {
      schedule(g, g.reportTask, 0, TimeUnit.MILLISECONDS);
    }
  }
}
