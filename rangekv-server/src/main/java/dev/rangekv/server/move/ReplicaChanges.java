package dev.rangekv.server.move;

import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ChangeReplicasCommand;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replica changes run by a range's leader.
 *
 * <p><b>Order: membership change first, then the {@code ChangeReplicas} command.</b> Membership is the
 * engine's job (a new member is caught up before it counts towards a majority, so it never does before it
 * holds the data). The command that records the new replica set and bumps the generation is proposed
 * only after the membership change committed, so a descriptor never names a replica that is not yet a
 * caught-up member. Neither step touches user data, so no write can be lost: a write at the old
 * generation either applied before the command (and is in every snapshot and log after it) or is
 * refused at apply with RANGE_MOVED. If the leader fails between the steps, the range runs with a
 * descriptor that lags its membership; a retry of the same request finds the member already in the
 * configuration and only proposes the command.
 *
 * <p><b>A move is one change.</b> An add that names a replica to replace swaps the two in one membership
 * change: the new replica is prepared (span snapshot) and caught up, then the engine commits the joint
 * configuration and the new one, and the new set is recorded once (one generation bump). The range never
 * has 4 voters: with add-then-remove, losing a zone that held 2 of the 4 left no majority, hence no
 * leader and no repair (ZoneSpreadIT). The leader never replaces itself.
 *
 * <p>A new replica joins directly as a voter that the engine catches up before it counts, not as a
 * non-voter promoted later: promotion would add a second membership change without adding safety. A
 * failed catch-up (target down, fetch failing) fails the membership change after the catch-up timeout;
 * the add then removes the half-made replica and the range keeps its old replicas.
 *
 * <p>No thread waits on a change, however long the catch-up: each runs as a chain of futures (the
 * engine's calls, the other nodes' through {@link ReplicaPeers}; {@link AsyncSteps}) whose short local
 * stages run on the moves executor, and the admin call is answered when the chain completes. Thread-safe.
 */
public final class ReplicaChanges {
  private static final Logger log = LoggerFactory.getLogger(ReplicaChanges.class);

  private final RangeConsensus consensus;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final ReplicaPeers peers;
  private final LocalReplicas local;
  private final Executor executor;
  private final MoveOptions options;
  /** Ranges with an add or a remove running here. */
  private final Set<Long> changing = ConcurrentHashMap.newKeySet();

  public ReplicaChanges(RangeConsensus consensus, RaftGateway gateway, ReplicaDirectory directory, ReplicaPeers peers,
      LocalReplicas local, Executor executor, MoveOptions options) {
    this.consensus = consensus;
    this.gateway = gateway;
    this.directory = directory;
    this.peers = peers;
    this.local = local;
    this.executor = executor;
    this.options = options;
  }

  /**
   * Adds a replica on the request's node, in place of {@code replacing_node_id}'s when set; completes
   * with the new descriptor.
   */
  public CompletableFuture<RangeDescriptorProto> add(AddReplicaRequest request) {
    return leader(request.getHeader()).thenComposeAsync(ctx -> alone(ctx, () -> addOn(ctx, request)), executor);
  }

  /** Removes the request's replica and drops it on its node; completes with the new descriptor. */
  public CompletableFuture<RangeDescriptorProto> remove(RemoveReplicaRequest request) {
    return leader(request.getHeader()).thenComposeAsync(ctx -> alone(ctx, () -> removeOn(ctx, request)), executor);
  }

  /**
   * Runs {@code change} unless another replica change of the range runs here: one at a time per range.
   * The controller may give up on a step whose call is still running (it cancels an operator when a
   * later step aims at a dead node) and send the next operator's add at once; a second add of the same
   * node would prepare its replica again, wiping the member the first add is joining, and leave the
   * group with an empty voter that knows no configuration (no leader could be elected: ControllerFailoverIT).
   * Refused with a retryable UNAVAILABLE that says nothing was applied.
   */
  private CompletableFuture<RangeDescriptorProto> alone(LeaderContext ctx,
      Supplier<CompletableFuture<RangeDescriptorProto>> change) {
    if (!changing.add(ctx.rangeId())) {
      throw fail("a replica change of range " + ctx.rangeId() + " is in progress", true);
    }
    CompletableFuture<RangeDescriptorProto> out;
    try {
      out = change.get();
    } catch (RuntimeException e) {
      changing.remove(ctx.rangeId());
      throw e;
    }
    return out.whenComplete((v, e) -> changing.remove(ctx.rangeId()));
  }

  /** Hands the leadership to the request's node; completes with the new leader's id. */
  public CompletableFuture<String> transfer(TransferLeaderRequest request) {
    return leader(request.getHeader()).thenComposeAsync(ctx -> transferOn(ctx, request), executor);
  }

  private CompletableFuture<LeaderContext> leader(RangeHeader header) {
    return CompletableFuture.supplyAsync(() -> LeaderContext.of(consensus, gateway, directory, header), executor);
  }

  /**
   * Adds the request's replica; with {@code replacing_node_id} also takes that replica out in the same
   * configuration change (one joint-consensus step, {@link #join}), records the new replica set once
   * and then drops the old replica on its node. The leader never replaces itself: it could not record
   * the change once it left the group, so that is refused as retryable (nothing applied) and the
   * caller moves the leadership first.
   */
  private CompletableFuture<RangeDescriptorProto> addOn(LeaderContext ctx, AddReplicaRequest request) {
    String leaving = request.getReplacingNodeId();
    if (leaving.equals(local.self().getNodeId())) {
      throw fail("the leader of range " + ctx.rangeId() + " cannot replace its own replica; move the leadership"
          + " off " + leaving + " first", true);
    }
    if (ctx.peerIds().stream().anyMatch(id -> directory.addressOf(id).equals(request.getAddress()))) {
      // a member already (an earlier attempt joined it): preparing it again would wipe a voter's log;
      // a replacement whose configuration change committed without being recorded only records (and
      // takes out the leaving replica if a plain add had joined the new one)
      CompletableFuture<Void> left = leaving.isEmpty() || !ctx.peerIds().contains(leaving)
          ? CompletableFuture.completedFuture(null)
          : setConfiguration(ctx, without(ctx.peers(), leaving), Duration.ofSeconds(30));
      return left.thenComposeAsync(v -> recordReplicas(request.getHeader(), ctx), executor)
          .thenComposeAsync(next -> dropLeaving(ctx, leaving, next), executor);
    }
    List<RaftReplica> known = new ArrayList<>(directory.replicaRecord(ctx.rangeId()));
    if (known.stream().noneMatch(r -> r.getNodeId().equals(local.self().getNodeId()))) {
      known.add(local.self());
    }
    PrepareReplicaRequest prepare = PrepareReplicaRequest.newBuilder().setRangeId(ctx.rangeId()).addAllKnown(known)
        .setBytesPerSecond(request.getBytesPerSecond()).build();
    return peers.prepare(request.getAddress(), prepare)
        .handleAsync((self, e) -> {
          if (e != null) {
            throw fail("preparing the new replica at " + request.getAddress() + " failed: " + AsyncSteps.cause(e), true);
          }
          return self;
        }, executor)
        .thenComposeAsync(target -> join(ctx, target, leaving), executor)
        .thenComposeAsync(v -> recordReplicas(request.getHeader(), ctx), executor)
        .thenComposeAsync(next -> dropLeaving(ctx, leaving, next), executor);
  }

  /** Drops the replaced replica once the recorded set no longer names it; completes with {@code next}. */
  private CompletableFuture<RangeDescriptorProto> dropLeaving(LeaderContext ctx, String leaving,
      RangeDescriptorProto next) {
    if (leaving.isEmpty() || next.getReplicasList().stream().anyMatch(r -> r.getNodeId().equals(leaving))) {
      return CompletableFuture.completedFuture(next);
    }
    return dropOn(leaving, ctx.rangeId(), false, List.of(next)).thenApply(v -> next);
  }

  private static List<Member> without(List<Member> peers, String nodeId) {
    return peers.stream().filter(p -> !p.nodeId().equals(nodeId)).toList();
  }

  /**
   * Puts {@code target} into the range's configuration, in place of {@code leaving} when that is a
   * member (one change: the engine catches the target up before it counts, and a replacement is a joint
   * change, so the voter count never grows and a majority of each set is needed meanwhile).
   */
  private CompletableFuture<Void> join(LeaderContext ctx, RaftReplica target, String leaving) {
    directory.learnAddresses(List.of(target));
    if (ctx.peerIds().contains(target.getNodeId())) {
      return CompletableFuture.completedFuture(null);
    }
    List<Member> before = ctx.peers();
    List<Member> next = new ArrayList<>(leaving.isEmpty() ? before : without(before, leaving));
    next.add(Member.of(target));
    long t0 = System.nanoTime();
    return setConfiguration(ctx, next, options.catchUpTimeout()).handleAsync((v, e) -> {
      if (e == null || joined(ctx, target.getNodeId(), leaving)) {
        // also when the call failed (timed out, say) after the change committed: keep it, record it
        log.info("replica caught up and joined rangeId={} node={} replaced={} ms={}", ctx.rangeId(),
            target.getNodeId(), leaving, (System.nanoTime() - t0) / 1_000_000);
        return CompletableFuture.<Void>completedFuture(null);
      }
      RangeKvException failure = fail("adding replica " + target.getNodeId() + " of range " + ctx.rangeId()
          + (leaving.isEmpty() ? "" : " in place of " + leaving) + " aborted: " + AsyncSteps.cause(e).getMessage(),
          true);
      return abortAdd(ctx, target, before).<Void>thenApply(x -> {
        throw failure;
      });
    }, executor).thenCompose(f -> f);
  }

  /** Whether the stable configuration has {@code target} and not {@code leaving} (when set). */
  private static boolean joined(LeaderContext ctx, String target, String leaving) {
    try {
      return ctx.leads() && !ctx.status().changing()
          && ctx.peerIds().contains(target) && (leaving.isEmpty() || !ctx.peerIds().contains(leaving));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Puts the configuration back to {@code before} (if the target got in) and drops the target's
   * half-made replica. When the configuration cannot be restored (this node lost the leadership, say)
   * the target may be a voter now, so its replica is kept: dropping a voter would cost the range a
   * member, and with one other replica down its quorum. Repair trims a surplus replica later. Never
   * completes exceptionally.
   */
  private CompletableFuture<Void> abortAdd(LeaderContext ctx, RaftReplica target, List<Member> before) {
    CompletableFuture<Void> restored;
    try {
      var status = ctx.status();
      restored = java.util.stream.Stream.concat(status.members().stream(), status.previousMembers().stream())
          .anyMatch(p -> p.nodeId().equals(target.getNodeId()))
          ? setConfiguration(ctx, without(before, target.getNodeId()), Duration.ofSeconds(30))
          : CompletableFuture.completedFuture(null);
    } catch (RuntimeException e) {
      restored = CompletableFuture.failedFuture(e);
    }
    return restored.handleAsync((v, e) -> {
      if (e != null) {
        log.warn("abort could not restore configuration, keeping the new replica rangeId={} node={} error={}",
            ctx.rangeId(), target.getNodeId(), AsyncSteps.cause(e).toString());
        return CompletableFuture.<Void>completedFuture(null);
      }
      return dropOn(target.getNodeId(), ctx.rangeId(), false, List.of());
    }, executor).thenCompose(f -> f);
  }

  private CompletableFuture<RangeDescriptorProto> removeOn(LeaderContext ctx, RemoveReplicaRequest request) {
    String node = request.getNodeId();
    if (node.equals(local.self().getNodeId())) {
      throw new RangeKvException(RangeKvErrors.invalidArgument("replica",
          "the leader cannot remove itself; transfer leadership first"));
    }
    CompletableFuture<Void> removed = CompletableFuture.completedFuture(null);
    if (ctx.peerIds().contains(node)) {
      List<Member> without = without(ctx.peers(), node);
      if (without.isEmpty()) {
        throw new RangeKvException(RangeKvErrors.invalidArgument("replica", "a range needs at least one replica"));
      }
      removed = setConfiguration(ctx, without, Duration.ofSeconds(30));
    }
    return removed.thenComposeAsync(v -> recordReplicas(request.getHeader(), ctx), executor)
        .thenComposeAsync(next -> dropOn(node, ctx.rangeId(), false, List.of(next)).thenApply(v -> next), executor);
  }

  private CompletableFuture<String> transferOn(LeaderContext ctx, TransferLeaderRequest request) {
    String target = request.getNodeId();
    if (target.equals(local.self().getNodeId())) {
      return CompletableFuture.completedFuture(target);
    }
    if (!ctx.peerIds().contains(target)) {
      throw new RangeKvException(RangeKvErrors.invalidArgument("replica", target + " is not a replica of range " + ctx.rangeId()));
    }
    gateway.transferStarted(ctx.rangeId(), target);
    return engine(consensus.transferLeadership(ctx.rangeId(), target, Duration.ofSeconds(15)), "transfer leadership")
        .handleAsync((moved, e) -> {
          gateway.transferEnded(ctx.rangeId());
          if (e == null) {
            log.info("leadership transferred rangeId={} to={}", ctx.rangeId(), target);
            return moved ? target : "";
          }
          Throwable c = AsyncSteps.cause(e);
          throw c instanceof RangeKvException rke ? rke : fail("transfer leadership failed: " + c, false);
        }, executor);
  }

  /**
   * Proposes the replica set of the committed configuration (descriptor order kept, new members last)
   * at the request's generation; completes with the new descriptor.
   */
  private CompletableFuture<RangeDescriptorProto> recordReplicas(RangeHeader header, LeaderContext ctx) {
    Map<String, Member> members = new LinkedHashMap<>();
    ctx.peers().forEach(m -> members.put(m.nodeId(), m));
    List<RaftReplica> replicas = new ArrayList<>();
    for (RaftReplica r : directory.replicaRecord(ctx.rangeId())) {
      if (members.remove(r.getNodeId()) != null) {
        replicas.add(r);
      }
    }
    for (Member m : members.values()) {
      replicas.add(RaftReplica.newBuilder().setNodeId(m.nodeId()).setRaftAddress(m.raftAddress())
          .setClientAddress(directory.addressOf(m.nodeId())).build());
    }
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(header)
        .setChangeReplicas(ChangeReplicasCommand.newBuilder().addAllReplicas(replicas)).build();
    return AsyncSteps.within(gateway.write(cmd), Duration.ofSeconds(30)).handleAsync((result, e) -> {
      if (e != null) {
        Throwable c = AsyncSteps.cause(e);
        if (c instanceof RangeKvException rke) {
          throw rke;
        }
        throw c instanceof TimeoutException ? fail("recording replicas timed out", false)
            : fail("recording replicas failed: " + c, false);
      }
      RangeDescriptorProto next = result.getRange();
      log.info("replicas recorded rangeId={} replicas={} generation={}", ctx.rangeId(),
          replicas.stream().map(RaftReplica::getNodeId).toList(), next.getGeneration());
      return next;
    }, executor);
  }

  private CompletableFuture<Void> setConfiguration(LeaderContext ctx, List<Member> members, Duration timeout) {
    return engine(consensus.changeMembers(ctx.rangeId(), ctx.peers(), members, timeout), "set configuration");
  }

  /**
   * Drops the replica of {@code rangeId} on {@code nodeId}. Best effort, never completes exceptionally:
   * a node that is down keeps its stale replica until it is dropped again.
   */
  CompletableFuture<Void> dropOn(String nodeId, long rangeId, boolean keepData, List<RangeDescriptorProto> successors) {
    if (nodeId.equals(local.self().getNodeId())) {
      return CompletableFuture.runAsync(() -> {
        try {
          local.drop(rangeId, keepData, successors);
        } catch (IOException | RuntimeException e) {
          log.warn("dropping replica failed rangeId={} node={} error={}", rangeId, nodeId, e.toString());
        }
      }, executor);
    }
    DropReplicaRequest drop = DropReplicaRequest.newBuilder().setRangeId(rangeId).setKeepData(keepData)
        .addAllSuccessors(successors).build();
    return peers.drop(nodeId, drop)
        .handleAsync((r, e) -> {
          if (e != null) {
            log.warn("dropping replica failed rangeId={} node={} error={}", rangeId, nodeId,
                AsyncSteps.cause(e).toString());
          }
          return null;
        }, executor);
  }

  /**
   * {@code call} failing with a retryable-if-not-applied UNAVAILABLE that says {@code what} failed (the
   * engine's reason, or its timeout), on the moves executor.
   */
  private <T> CompletableFuture<T> engine(CompletableFuture<T> call, String what) {
    return call.handleAsync((v, e) -> {
      if (e != null) {
        Throwable c = AsyncSteps.cause(e);
        throw c instanceof ConsensusException ce ? fail(ce.getMessage(), false) : fail(what + " failed: " + c, false);
      }
      return v;
    }, executor);
  }

  static RangeKvException fail(String reason, boolean definitelyNotApplied) {
    return new RangeKvException(RangeKvErrors.unavailable(reason, definitelyNotApplied));
  }
}
