package dev.rangekv.server.dormancy;

import dev.rangekv.core.dormancy.DormancyPolicy;
import dev.rangekv.core.dormancy.RangeActivity;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.replica.DormancyCommand;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.replica.WakeRangeRequest;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.raft.ProposalBuffers;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's dormancy loop, on its group thread. Each tick, for every range this node leads: asks the
 * {@link DormancyPolicy} and proposes the dormancy entry when the range has idled long enough; records
 * the wake of a range still marked dormant; and asks the node of a follower that stopped answering to
 * reopen its replica (a replica closed while the range was awake, e.g. one restarted during dormancy,
 * would otherwise stay closed). When a dormancy entry applies, the replica's group is closed a little
 * later (the leader waits until its followers reported the commit, a few heartbeat intervals at most),
 * unless anything happened to the range after the entry. A replica here that finds no leader for a
 * silent-follower period wakes its range itself: it missed the dormancy entry (down when the others
 * closed), and no request or leader would otherwise ever bring it up to date.
 */
public final class DormancyTicker {
  private static final Logger log = LoggerFactory.getLogger(DormancyTicker.class);
  /** How often a silent follower's node is asked to wake its replica. */
  private static final long FOLLOWER_WAKE_EVERY_MILLIS = 5_000;
  /** How many heartbeat intervals a leader waits for its followers to learn a dormancy entry's commit. */
  private static final int FOLLOWER_COMMIT_CHECKS = 10;

  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final RangeConsensus consensus;
  private final DormantGroups groups;
  private final RangeWaker waker;
  private final RaftGateway gateway;
  private final ProposalBuffers proposals;
  private final PeerChannels channels;
  private final ScheduledExecutorService groupThread;
  private final ScheduledExecutorService closeThreads;
  private final LongSupplier clockMillis;
  private final DormancyPolicy policy;
  private final Duration heartbeat;
  private final Duration silentFollower;
  private final Set<Long> proposing = ConcurrentHashMap.newKeySet();
  /** When this node first saw itself lead each range: a new leader waits the idle period too. */
  private final Map<Long, Long> ledSince = new ConcurrentHashMap<>();
  private final Map<String, Long> followerWakes = new ConcurrentHashMap<>();
  /** When each open replica here that does not lead was first seen without a known leader. */
  private final Map<Long, Long> leaderlessSince = new ConcurrentHashMap<>();
  /** Ranges left alone until their group's quiet stamp changes or a moment comes (ticker thread only). */
  private final QuietRanges quiet = new QuietRanges();
  private long visits;

  /** Timings: the idle policy, the leader's heartbeat interval, and when a follower counts as silent. */
  public record Settings(DormancyPolicy policy, Duration heartbeat, Duration silentFollower) {}

  /** {@code closeThreads}: where dormant groups are closed (not the group thread, see {@link DormantGroups}). */
  public DormancyTicker(RangeWaker.Node node, RangeWaker waker, ProposalBuffers proposals, Settings settings,
      ScheduledExecutorService closeThreads) {
    this.closeThreads = closeThreads;
    this.store = node.store();
    this.directory = node.directory();
    this.consensus = node.consensus();
    this.groups = node.groups();
    this.waker = waker;
    this.gateway = node.gateway();
    this.proposals = proposals;
    this.channels = node.channels();
    this.groupThread = node.groupThread();
    this.clockMillis = node.clockMillis();
    this.policy = settings.policy();
    this.heartbeat = settings.heartbeat();
    this.silentFollower = settings.silentFollower();
  }

  /** Ticks every {@code period}. */
  public void start(Duration period) {
    groupThread.scheduleWithFixedDelay(this::tick, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Visits every range held here, except those whose group stayed quiet since a visit that found nothing
   * to do until a later moment ({@link QuietRanges}): only the clock moves for them, and the engine's quiet
   * stamp changes as soon as anything else does.
   */
  void tick() {
    long now = clockMillis.getAsLong();
    Collection<RangeReplica> replicas = directory.replicas();
    for (RangeReplica replica : replicas) {
      long rangeId = replica.rangeId();
      long stamp = consensus.quietStamp(rangeId); // before the visit: a change during it shows next time
      if (quiet.skips(rangeId, stamp, now)) {
        continue;
      }
      try {
        quiet.park(rangeId, stamp, tick(replica, now));
      } catch (IOException | RuntimeException e) {
        quiet.forget(rangeId);
        log.debug("dormancy tick skipped a range rangeId={} error={}", replica.rangeId(), e.toString());
      }
    }
    if (quiet.size() > replicas.size()) {
      Set<Long> held = new HashSet<>();
      replicas.forEach(r -> held.add(r.rangeId()));
      quiet.retain(held);
    }
  }

  /** Ranges visited this way since the node started, skipped ones not counted (for tests). */
  long visits() {
    return visits;
  }

  /**
   * One range's visit; returns until when nothing but a change of its quiet stamp can give the next visit
   * anything to do ({@code now} or earlier: the next tick must visit it).
   */
  private long tick(RangeReplica replica, long now) throws IOException {
    visits++;
    long rangeId = replica.rangeId();
    GroupStatus division = consensus.status(rangeId)
        .orElseThrow(() -> new IOException("no group of range " + rangeId + " here"));
    if (!division.leadership().leader()) {
      ledSince.remove(rangeId);
      return wakeIfLeaderless(rangeId, division, now) ? now : Long.MAX_VALUE;
    }
    leaderlessSince.remove(rangeId);
    long since = ledSince.computeIfAbsent(rangeId, id -> now);
    if (!closing(replica)) {
      // a follower that closed for the dormancy entry is silent on purpose: woken now (this leader waits
      // for the others' commit reports before it closes), it reopened after everyone else had closed and
      // stayed open alone (ManyDormantRangesIT)
      wakeSilentFollowers(rangeId, division, now);
    }
    // a follower not heard from now may be heard or silent longer later, with the same stamp
    boolean allHeard = division.followerSilenceMillis().values().stream().allMatch(silence -> silence == 0);
    if (!division.leadership().ready() || replica.descriptor().isEmpty()) {
      return now;
    }
    if (DormancyRecord.dormantAt(store, rangeId).isPresent()) {
      if (!waker.isWaking(rangeId) && replica.appliedIndex().isPresent()
          && replica.appliedIndex().getAsLong() > DormancyRecord.dormantAt(store, rangeId).getAsLong()) {
        waker.recordWake(rangeId); // open and past its dormancy entry: it woke
      }
      return now;
    }
    if (proposing.contains(rangeId)) {
      return now;
    }
    if (!policy.enabled()) {
      return allHeard ? Long.MAX_VALUE : now;
    }
    RangeDescriptor d = replica.descriptor().get();
    RangeActivity activity = new RangeActivity(Math.max(since, waker.lastRequestMillis(rangeId)),
        d.replicas().size(), caughtUp(division, d.replicas().size() - 1), replica.isFrozen(),
        inFlight(rangeId, division), true, waker.requested(rangeId));
    if (policy.decide(activity, now).sleep()) {
      sleep(rangeId, d);
      return now;
    }
    return allHeard ? policy.sleepsFrom(activity).orElse(now) : now;
  }

  /** The replica applied its dormancy entry and nothing after it: its group closes soon on every node. */
  private boolean closing(RangeReplica replica) {
    OptionalLong mark = DormancyRecord.dormantAt(store, replica.rangeId());
    return mark.isPresent() && replica.appliedIndex().isPresent()
        && replica.appliedIndex().getAsLong() <= mark.getAsLong();
  }

  private int caughtUp(GroupStatus division, int followers) {
    long commit = division.commitIndex();
    int matching = 0;
    for (long m : division.followerMatchIndices()) {
      if (m >= commit) {
        matching++;
      }
    }
    int answering = 0;
    for (long silence : division.followerSilenceMillis().values()) {
      // answered one of the last two heartbeats: a follower stopped since would miss the dormancy entry
      // (then it wakes the range itself once it is back, see wakeIfLeaderless)
      if (silence < heartbeat.toMillis()) {
        answering++;
      }
    }
    return Math.max(0, Math.min(followers, Math.min(matching, answering)));
  }

  private boolean inFlight(long rangeId, GroupStatus division) {
    return !proposals.idle(rangeId) || gateway.transferring(rangeId) || waker.isWaking(rangeId)
        || division.changing()
        || division.hasNonVoters()
        || division.appliedIndex() < division.commitIndex()
        || division.lastEntry().index() > division.commitIndex();
  }

  private void sleep(long rangeId, RangeDescriptor d) {
    proposing.add(rangeId);
    RangeCommand cmd = RangeCommand.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(rangeId).setGeneration(d.generation()))
        .setDormancy(DormancyCommand.newBuilder().setDormant(true))
        .build();
    gateway.write(cmd).whenComplete((r, e) -> {
      proposing.remove(rangeId);
      if (e != null) {
        log.info("dormancy not proposed rangeId={} error={}", rangeId, e.toString());
      }
    });
  }

  /**
   * A replica open here that has known no leader for a silent-follower period wakes its range (asks
   * every replica's node to open it; a peer with a longer log wins the election and catches this one
   * up). Seen after a restart: the others went dormant with an entry this replica never received, and it
   * campaigned alone for good (ManyDormantRangesIT: stores never converged). Returns true while the
   * replica knows no leader (the next tick must look again).
   */
  private boolean wakeIfLeaderless(long rangeId, GroupStatus division, long now) {
    if (!division.leadership().leaderId().isEmpty()) {
      leaderlessSince.remove(rangeId);
      return false;
    }
    long since = leaderlessSince.computeIfAbsent(rangeId, id -> now);
    if (now - since < silentFollower.toMillis() || waker.isWaking(rangeId)) {
      return true;
    }
    leaderlessSince.put(rangeId, now); // the next try, if needed, one period later
    // the replica's Raft state says which replica can win: only one whose log is at least as long as a
    // majority's (ManyDormantRangesIT: a fresh follower with an empty log kept standing, BENCHMARKS.md)
    log.info("replica without a leader wakes its range rangeId={} leaderlessMillis={} follower={} term={} lastEntry={}/{}"
        + " applied={} closed={}", rangeId, now - since, division.follower(), division.currentTerm(),
        division.lastEntry().term(), division.lastEntry().index(), division.appliedIndex(), division.closed());
    waker.wake(rangeId, true);
    return true;
  }

  private void wakeSilentFollowers(long rangeId, GroupStatus division, long now) {
    for (Map.Entry<String, Long> f : division.followerSilenceMillis().entrySet()) {
      if (f.getValue() < silentFollower.toMillis()) {
        continue;
      }
      String follower = f.getKey();
      String key = rangeId + "/" + follower;
      Long last = followerWakes.get(key);
      if (last != null && now - last < FOLLOWER_WAKE_EVERY_MILLIS) {
        continue;
      }
      followerWakes.put(key, now);
      String address = directory.addressOf(follower);
      if (!address.isEmpty()) {
        ReplicaServiceGrpc.newFutureStub(channels.channel(address)).withDeadlineAfter(10, TimeUnit.SECONDS)
            .withWaitForReady() // a restarted node's channel may still be backing off its reconnect
            .wakeRange(WakeRangeRequest.newBuilder().setRangeId(rangeId).build());
      }
    }
  }

  /**
   * A dormancy entry applied here (on the apply thread): close the group soon, off that thread. The
   * leader waits a heartbeat interval so its followers hear the commit before it goes quiet.
   */
  public void applied(long rangeId, boolean dormant, long index) {
    if (!dormant) {
      return;
    }
    try {
      closeThreads.schedule(() -> closeIfStillDormant(rangeId, index), heartbeat.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("node closing: dormant range closes at the next start rangeId={}", rangeId);
    }
  }

  private void closeIfStillDormant(long rangeId, long index) {
    closeIfStillDormant(rangeId, index, 0);
  }

  private void closeIfStillDormant(long rangeId, long index, int attempt) {
    try {
      if (attempt < FOLLOWER_COMMIT_CHECKS && followerBehind(rangeId, index)) {
        // a follower that never learns the entry committed keeps its group open and campaigns alone
        closeThreads.schedule(() -> closeIfStillDormant(rangeId, index, attempt + 1), heartbeat.toMillis(),
            TimeUnit.MILLISECONDS);
        return;
      }
      if (groups.close(rangeId, () -> stillDormant(rangeId, index))) {
        ledSince.remove(rangeId);
        leaderlessSince.remove(rangeId);
      }
    } catch (IOException | RuntimeException e) { // a refused reschedule included: the node is closing
      log.warn("closing a dormant range failed rangeId={} error={}", rangeId, e.toString());
    }
  }

  /** On the leader: some follower's last reported commit index is below the dormancy entry's. */
  private boolean followerBehind(long rangeId, long index) throws IOException {
    if (!groups.isOpen(rangeId)) {
      return false;
    }
    GroupStatus division = consensus.status(rangeId)
        .orElseThrow(() -> new IOException("no group of range " + rangeId + " here"));
    if (!division.leadership().leader()) {
      return false;
    }
    for (long commit : division.commitIndexByNode().values()) {
      if (commit < index) {
        return true;
      }
    }
    return false;
  }

  private boolean stillDormant(long rangeId, long index) {
    OptionalLong mark = DormancyRecord.dormantAt(store, rangeId);
    RangeReplica replica = directory.replica(rangeId).orElse(null);
    if (mark.isEmpty() || mark.getAsLong() != index || replica == null || waker.isWaking(rangeId)
        || replica.appliedIndex().isEmpty() || replica.appliedIndex().getAsLong() != index) {
      return false; // woke, or something came after the entry: the leader records the wake instead
    }
    return consensus.status(rangeId).map(d -> d.lastEntry().index() == index).orElse(false)
        && proposals.idle(rangeId);
  }
}
