package dev.rangekv.server.dormancy;

import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.replica.DormancyCommand;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.replica.WakeRangeRequest;
import dev.rangekv.proto.replica.WakeRangeResponse;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes dormant ranges and remembers when each range was last asked for. A request for a range this
 * node holds dormant reopens its group here, asks every other replica's node to reopen theirs
 * ({@code WakeRange}), and completes once the group knows a leader; the request then runs as usual (a
 * follower answers NOT_LEADER with the hint, as for any range). The node that wakes a range stands for
 * election as soon as a majority of its replicas runs the group, so no randomized election race decides
 * the leader (see {@link RangeConsensus#campaign}). Concurrent wakes of one range share one
 * future. Whichever replica leads then records the wake with a dormancy command. Thread-safe; group
 * adds and closes run on the node's group thread, never on the caller's.
 */
public final class RangeWaker {
  private static final Logger log = LoggerFactory.getLogger(RangeWaker.class);
  private static final CompletableFuture<Void> AWAKE = CompletableFuture.completedFuture(null);
  /** How often a wake checks whether its group found a leader. */
  private static final long POLL_MILLIS = 10;
  /** How long a wake waits for a leader before it gives up (the request then fails as unavailable). */
  private static final long WAKE_TIMEOUT_MILLIS = 15_000;
  /** How often, and how far apart, peers not yet open are asked again before this node stands. */
  private static final int OPEN_RETRIES = 20;
  private static final long OPEN_RETRY_MILLIS = 50;

  private final String nodeId;
  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final RangeConsensus consensus;
  private final DormantGroups groups;
  private final PeerChannels channels;
  private final RaftGateway gateway;
  private final ScheduledExecutorService groupThread;
  private final LongSupplier clockMillis;
  private final Map<Long, Long> lastRequest = new ConcurrentHashMap<>();
  /** Ranges a client request reached here (a wake for a split or a step is not one). */
  private final Set<Long> requested = ConcurrentHashMap.newKeySet();
  private final Map<Long, CompletableFuture<Void>> waking = new ConcurrentHashMap<>();

  /** Everything a waker needs of its node. */
  public record Node(String nodeId, NodeStore store, ReplicaDirectory directory, RangeConsensus consensus,
      DormantGroups groups, PeerChannels channels, RaftGateway gateway, ScheduledExecutorService groupThread,
      LongSupplier clockMillis) {}

  public RangeWaker(Node node) {
    this.nodeId = node.nodeId();
    this.store = node.store();
    this.directory = node.directory();
    this.consensus = node.consensus();
    this.groups = node.groups();
    this.channels = node.channels();
    this.gateway = node.gateway();
    this.groupThread = node.groupThread();
    this.clockMillis = node.clockMillis();
  }

  /**
   * Notes a request for {@code rangeId} and completes when the range is awake on this node (at once
   * unless it is dormant here). Never fails: a wake that finds no leader in time lets the request run
   * and answer as the range stands.
   */
  public CompletableFuture<Void> awake(long rangeId) {
    lastRequest.put(rangeId, clockMillis.getAsLong());
    requested.add(rangeId);
    if (directory.replica(rangeId).isPresent() || DormancyRecord.dormantAt(store, rangeId).isEmpty()) {
      return AWAKE;
    }
    return wake(rangeId, true).exceptionally(e -> null);
  }

  /** When this node last saw a request for {@code rangeId} or woke it; 0 when never. */
  public long lastRequestMillis(long rangeId) {
    return lastRequest.getOrDefault(rangeId, 0L);
  }

  /**
   * Whether a client request for {@code rangeId} reached this node since it started: a split's new child
   * or a range after a restart has none, and idles only the policy's fresh period.
   */
  public boolean requested(long rangeId) {
    return requested.contains(rangeId);
  }

  /** True while a wake of {@code rangeId} started here has not found a leader. */
  public boolean isWaking(long rangeId) {
    return waking.containsKey(rangeId);
  }

  /**
   * Reopens this node's replica of {@code rangeId} if it is closed, and (when {@code tellPeers}) asks
   * the other replicas' nodes to do the same; completes when the group knows a leader.
   */
  public CompletableFuture<Void> wake(long rangeId, boolean tellPeers) {
    CompletableFuture<Void> fresh = new CompletableFuture<>();
    CompletableFuture<Void> running = waking.putIfAbsent(rangeId, fresh);
    if (running != null) {
      return running;
    }
    lastRequest.put(rangeId, clockMillis.getAsLong());
    long started = System.nanoTime();
    fresh.whenComplete((v, e) -> {
      waking.remove(rangeId, fresh);
      lastRequest.put(rangeId, clockMillis.getAsLong());
      log.info("range woke rangeId={} millis={} ok={}", rangeId, (System.nanoTime() - started) / 1_000_000, e == null);
    });
    try {
      groupThread.execute(() -> {
        try {
          groups.open(rangeId);
        } catch (IOException | RuntimeException e) {
          fresh.completeExceptionally(e);
          return;
        }
        if (tellPeers) {
          tellPeers(rangeId, fresh, 0);
        }
        awaitLeader(rangeId, fresh, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAKE_TIMEOUT_MILLIS));
      });
    } catch (RejectedExecutionException e) {
      fresh.completeExceptionally(e); // the node is closing
    }
    return fresh;
  }

  /**
   * Completes, once this node tried to open its replica of {@code rangeId} (a peer's wake asked it to,
   * {@code reply_when_open}), with whether it runs the group now; the wake goes on as {@code wake(rangeId,
   * false)}.
   */
  public CompletableFuture<Boolean> openForPeer(long rangeId) {
    CompletableFuture<Boolean> opened = new CompletableFuture<>();
    wake(rangeId, false);
    try {
      // the group thread runs tasks in order: this runs after the wake's open (queued above, or earlier)
      groupThread.execute(() -> opened.complete(groups.isOpen(rangeId)));
    } catch (RejectedExecutionException e) {
      opened.complete(false);
    }
    return opened;
  }

  /**
   * Asks the other replicas' nodes to open their replicas of {@code rangeId} and answer once open; when a
   * majority (with this node) runs the group, this node's replica stands for election at once (see {@link
   * RangeConsensus#campaign}). Peers that are not open yet (a split child whose split they have not applied) are asked
   * again a few times, {@link #OPEN_RETRY_MILLIS} apart; after that the randomized election timeout
   * elects as before.
   */
  private void tellPeers(long rangeId, CompletableFuture<Void> done, int round) {
    List<RaftReplica> peers = new ArrayList<>();
    for (RaftReplica r : directory.replicaRecord(rangeId)) {
      if (!r.getNodeId().equals(nodeId) && !r.getClientAddress().isEmpty()) {
        peers.add(r);
      }
    }
    int need = (peers.size() + 1) / 2; // a majority of the replicas, this node included
    if (need == 0) {
      stand(rangeId);
      return;
    }
    AtomicInteger open = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    for (RaftReplica r : peers) {
      // wait for the channel: to a node that restarted a moment ago it is still backing off its reconnect,
      // and a call failing fast there left that replica closed while its peers woke and split the range
      // (BackupKillProcessIT: the restarted node never heard of the wake, the split children missed it)
      ReplicaServiceGrpc.newStub(channels.channel(r.getClientAddress()))
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .withWaitForReady()
          .wakeRange(WakeRangeRequest.newBuilder().setRangeId(rangeId).setReplyWhenOpen(true).build(),
              new StreamObserver<>() {
                @Override
                public void onNext(WakeRangeResponse response) {
                  if (response.getOpen() && open.incrementAndGet() == need) {
                    runOnGroupThread(() -> stand(rangeId));
                  }
                }

                @Override
                public void onError(Throwable t) {
                  onCompleted();
                }

                @Override
                public void onCompleted() {
                  if (answered.incrementAndGet() == peers.size() && open.get() < need && round < OPEN_RETRIES
                      && !done.isDone()) {
                    try {
                      groupThread.schedule(() -> tellPeers(rangeId, done, round + 1), OPEN_RETRY_MILLIS,
                          TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException e) {
                      // the node is closing
                    }
                  }
                }
              });
    }
  }

  private void runOnGroupThread(Runnable task) {
    try {
      groupThread.execute(task);
    } catch (RejectedExecutionException e) {
      // the node is closing
    }
  }

  private void stand(long rangeId) {
    try {
      boolean standing = consensus.campaign(rangeId);
      log.debug("range stands for election on wake rangeId={} standing={}", rangeId, standing);
    } catch (IOException | RuntimeException e) {
      log.debug("range could not stand for election rangeId={} error={}", rangeId, e.toString());
    }
  }

  private void awaitLeader(long rangeId, CompletableFuture<Void> done, long deadlineNanos) {
    Leadership division = consensus.leadership(rangeId).orElse(null);
    if (division == null) {
      done.completeExceptionally(new IllegalStateException("range " + rangeId + " closed again while waking"));
      return;
    }
    if (division.ready()) {
      recordWake(rangeId);
      done.complete(null);
    } else if (!division.leader() && !division.leaderId().isEmpty()) {
      done.complete(null);
    } else if (System.nanoTime() > deadlineNanos) {
      done.completeExceptionally(new IllegalStateException("range " + rangeId + " found no leader on wake"));
    } else {
      try {
        groupThread.schedule(() -> awaitLeader(rangeId, done, deadlineNanos), POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        done.completeExceptionally(e);
      }
    }
  }

  /**
   * On the leader, once a split it proposed applied: the followers learn a commit only from the next
   * append, which for an otherwise idle range is the next heartbeat (up to half an RPC timeout, 500 ms
   * by default, later), and they create the child's group only when they apply the split; meanwhile the
   * child's replica here runs out its first-election timeout against peers that do not exist yet and
   * falls back to a full election timeout. So the leader appends an empty entry at once (a wake record:
   * it carries the new commit index to the followers) and, once it committed, wakes the child here,
   * which asks its peers to open it and stands for election as soon as a majority runs it. A child born
   * dormant (a pre-split's) is left closed: the first request, operator step or peer's wake opens it.
   */
  public void splitApplied(SplitRangeResponse split) {
    long parent = split.getLeft().getRangeId();
    long child = split.getRight().getRangeId();
    // the parent is busy, though no client asked: a pre-split splits it again and again, and taken for
    // idle (a fresh range) it went dormant between two splits and had to be woken for the next one
    lastRequest.put(parent, clockMillis.getAsLong());
    if (directory.replica(child).isEmpty() && DormancyRecord.dormantAt(store, child).isPresent()) {
      log.debug("split child born dormant rangeId={} childRangeId={}", parent, child);
      return;
    }
    RangeCommand noop = RangeCommand.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(parent).setGeneration(split.getLeft().getGeneration()))
        .setDormancy(DormancyCommand.newBuilder().setDormant(false))
        .build();
    gateway.write(noop).whenComplete((r, e) -> {
      if (e != null) {
        log.debug("entry after a split not proposed rangeId={} error={}", parent, e.toString());
      }
      wake(child, true);
    });
  }

  /**
   * Proposes the wake record when this node leads a range still marked dormant (it woke, or a later
   * write raced the dormancy entry): until it applies, a restart would leave the replica closed.
   */
  public void recordWake(long rangeId) {
    if (DormancyRecord.dormantAt(store, rangeId).isEmpty()) {
      return;
    }
    RangeReplica replica = directory.replica(rangeId).orElse(null);
    if (replica == null || replica.descriptor().isEmpty()) {
      return;
    }
    RangeCommand cmd = RangeCommand.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(rangeId).setGeneration(replica.descriptor().get().generation()))
        .setDormancy(DormancyCommand.newBuilder().setDormant(false))
        .build();
    gateway.write(cmd).whenComplete((r, e) -> {
      if (e != null) {
        log.debug("wake record not proposed rangeId={} error={}", rangeId, e.toString());
      }
    });
  }
}
