package dev.rangekv.server.move;

import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.proto.calls.UnaryCalls;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ChangeReplicasCommand;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replica changes run by a range's leader.
 *
 * <p><b>Order: Ratis configuration first, then the {@code ChangeReplicas} command.</b> Membership is
 * Ratis' job (joint consensus; a new peer is staged until caught up, so it never counts towards a
 * majority before it holds the data). The command that records the new replica set and bumps the
 * generation is proposed only after the configuration change committed, so a descriptor never names a
 * replica that is not yet a caught-up member. Neither step touches user data, so no write can be lost:
 * a write at the old generation either applied before the command (and is in every snapshot and log
 * after it) or is refused at apply with RANGE_MOVED. If the leader fails between the steps, the range
 * runs with a descriptor that lags its membership; a retry of the same request finds the member already
 * in the configuration and only proposes the command.
 *
 * <p><b>A move is one change.</b> An add that names a replica to replace swaps the two in one Ratis
 * configuration change: the new replica is prepared (span snapshot) and caught up while staged, then
 * Ratis commits C_old,new and C_new (joint consensus), and the new set is recorded once (one generation
 * bump). The range never has 4 voters: with add-then-remove, losing a zone that held 2 of the 4 left no
 * majority, hence no leader and no repair (ZoneSpreadIT). The leader never replaces itself.
 *
 * <p>A new replica joins directly as a staged voter rather than as a Ratis listener promoted later:
 * staging already keeps it out of the majority until it caught up, and listeners added at runtime
 * report a misleading role in 3.3.0 (shared/notes/ratis.md §3), so promotion would add a second
 * configuration change without adding safety. A failed catch-up (target down, fetch failing) fails
 * the configuration change after Ratis' staging timeout; the add then removes the half-made replica and
 * the range keeps its old replicas.
 *
 * <p>No thread waits on a change, however long the catch-up: each runs as a chain of futures (Ratis'
 * async calls, async gRPC stubs; {@link AsyncSteps}) whose short local stages run on the moves
 * executor, and the admin call is answered when the chain completes. Thread-safe.
 */
public final class ReplicaChanges {
  private static final Logger log = LoggerFactory.getLogger(ReplicaChanges.class);

  private final RaftServer server;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final PeerChannels channels;
  private final LocalReplicas local;
  private final Executor executor;
  private final MoveOptions options;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  /** Ranges with an add or a remove running here. */
  private final Set<Long> changing = ConcurrentHashMap.newKeySet();

  public ReplicaChanges(RaftServer server, RaftGateway gateway, ReplicaDirectory directory, PeerChannels channels,
      LocalReplicas local, Executor executor, MoveOptions options) {
    this.server = server;
    this.gateway = gateway;
    this.directory = directory;
    this.channels = channels;
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
    return CompletableFuture.supplyAsync(() -> LeaderContext.of(server, gateway, directory, header), executor);
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
    return UnaryCalls.future(replicaStub(request.getAddress(), Duration.ofSeconds(30))::prepareReplica, prepare)
        .handleAsync((r, e) -> {
          if (e != null) {
            throw fail("preparing the new replica at " + request.getAddress() + " failed: " + AsyncSteps.cause(e), true);
          }
          return r.getSelf();
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

  private static List<RaftPeer> without(List<RaftPeer> peers, String nodeId) {
    return peers.stream().filter(p -> !p.getId().toString().equals(nodeId)).toList();
  }

  /**
   * Puts {@code target} into the range's configuration, in place of {@code leaving} when that is a
   * member (one change: Ratis stages the target until it caught up, then commits the joint
   * configuration C_old,new and then C_new, so the voter count never grows and a majority of each set
   * is needed meanwhile).
   */
  private CompletableFuture<Void> join(LeaderContext ctx, RaftReplica target, String leaving) {
    directory.learnAddresses(List.of(target));
    if (ctx.peerIds().contains(target.getNodeId())) {
      return CompletableFuture.completedFuture(null);
    }
    List<RaftPeer> before = ctx.peers();
    List<RaftPeer> next = new ArrayList<>(leaving.isEmpty() ? before : without(before, leaving));
    next.add(RaftPeer.newBuilder().setId(target.getNodeId()).setAddress(target.getRaftAddress()).build());
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
      return ctx.division().getInfo().isLeader() && ctx.conf().getPreviousPeers().isEmpty()
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
  private CompletableFuture<Void> abortAdd(LeaderContext ctx, RaftReplica target, List<RaftPeer> before) {
    CompletableFuture<Void> restored;
    try {
      restored = ctx.division().getRaftConf().getAllPeers().stream()
          .anyMatch(p -> p.getId().toString().equals(target.getNodeId()))
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
      List<RaftPeer> without = ctx.peers().stream().filter(p -> !p.getId().toString().equals(node)).toList();
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
    return ratis(() -> server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, server.getId(),
        ctx.division().getGroup().getGroupId(), callIds.incrementAndGet(), RaftPeerId.valueOf(target), 10_000)),
        Duration.ofSeconds(15), "transfer leadership").handleAsync((reply, e) -> {
          if (e == null) {
            gateway.transferEnded(ctx.rangeId());
            log.info("leadership transferred rangeId={} to={}", ctx.rangeId(), target);
            return CompletableFuture.completedFuture(reply.isSuccess() ? target : "");
          }
          Throwable c = AsyncSteps.cause(e);
          RangeKvException failure = c instanceof RangeKvException rke ? rke
              : fail("transfer leadership failed: " + c, false);
          return stepDownIfStuck(ctx, failure).<String>thenApply(v -> {
            gateway.transferEnded(ctx.rangeId());
            throw failure;
          });
        }, executor).thenCompose(f -> f);
  }

  /**
   * Ratis 3.3.0 leaves a leadership transfer that failed to start pending for good
   * ({@code TransferLeadership.start} completes the request's reply but never clears it; only a
   * timed-out transfer or a new leader clears it): the leader then refuses every write and every
   * configuration change with {@code LeaderSteppingDownException} until its leadership changes, and a
   * transfer to any other replica is refused as "a previous request exists". It happens when the target
   * does not answer StartLeaderElection at once, e.g. it died just before: the range would stay unwritable
   * and unrepairable (ControllerRepairIT). Stepping down is the one public way out: the election that
   * follows (among the live replicas; this one may win again) clears the pending transfer. Never
   * completes exceptionally.
   */
  private CompletableFuture<Void> stepDownIfStuck(LeaderContext ctx, RangeKvException failure) {
    String message = String.valueOf(failure.getMessage());
    boolean notStarted = message.contains("COMPLETED_EXCEPTIONALLY") || message.contains("NULL_LOG_APPENDER")
        || message.contains("NULL_FOLLOWER") || message.contains("a previous");
    if (!notStarted || !ctx.division().getInfo().isLeader()) {
      return CompletableFuture.completedFuture(null);
    }
    log.warn("leadership transfer failed to start, stepping down to clear it rangeId={} error={}", ctx.rangeId(),
        message);
    CompletableFuture<RaftClientReply> stepDown;
    try {
      stepDown = AsyncSteps.within(server.transferLeadershipAsync(new TransferLeadershipRequest(clientId,
          server.getId(), ctx.division().getGroup().getGroupId(), callIds.incrementAndGet(), null, 5_000)),
          Duration.ofSeconds(10));
    } catch (IOException e) {
      stepDown = CompletableFuture.failedFuture(e);
    }
    return stepDown.handleAsync((r, e) -> {
      if (e != null) {
        log.warn("step down failed rangeId={} error={}", ctx.rangeId(), AsyncSteps.cause(e).toString());
      }
      return null;
    }, executor);
  }

  /**
   * Proposes the replica set of the committed configuration (descriptor order kept, new members last)
   * at the request's generation; completes with the new descriptor.
   */
  private CompletableFuture<RangeDescriptorProto> recordReplicas(RangeHeader header, LeaderContext ctx) {
    Map<String, RaftPeer> members = ctx.division().getRaftConf().getCurrentPeers().stream()
        .collect(Collectors.toMap(p -> p.getId().toString(), Function.identity()));
    List<RaftReplica> replicas = new ArrayList<>();
    for (RaftReplica r : directory.replicaRecord(ctx.rangeId())) {
      if (members.remove(r.getNodeId()) != null) {
        replicas.add(r);
      }
    }
    for (RaftPeer p : members.values()) {
      replicas.add(RaftReplica.newBuilder().setNodeId(p.getId().toString()).setRaftAddress(p.getAddress())
          .setClientAddress(directory.addressOf(p.getId().toString())).build());
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

  private CompletableFuture<Void> setConfiguration(LeaderContext ctx, List<RaftPeer> servers, Duration timeout) {
    SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(servers)
        .setServersInCurrentConf(ctx.peers())
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .build();
    return ratis(() -> server.setConfigurationAsync(new SetConfigurationRequest(clientId, server.getId(),
        ctx.division().getGroup().getGroupId(), callIds.incrementAndGet(), args)), timeout, "set configuration")
        .thenApply(reply -> null);
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
    return UnaryCalls.future(replicaStub(directory.addressOf(nodeId), Duration.ofSeconds(15))::dropReplica, drop)
        .handleAsync((r, e) -> {
          if (e != null) {
            log.warn("dropping replica failed rangeId={} node={} error={}", rangeId, nodeId,
                AsyncSteps.cause(e).toString());
          }
          return null;
        }, executor);
  }

  private ReplicaServiceGrpc.ReplicaServiceStub replicaStub(String address, Duration timeout) {
    return ReplicaServiceGrpc.newStub(channels.channel(address)).withDeadlineAfter(timeout.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private interface AsyncCall {
    CompletableFuture<RaftClientReply> call() throws IOException;
  }

  /**
   * A Ratis call bounded by {@code timeout}, completing with its successful reply or a retryable
   * UNAVAILABLE saying {@code what} failed (the reply's exception, the call's failure, or the timeout).
   */
  private CompletableFuture<RaftClientReply> ratis(AsyncCall call, Duration timeout, String what) {
    CompletableFuture<RaftClientReply> sent;
    try {
      sent = AsyncSteps.within(call.call(), timeout);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(fail(what + " failed: " + e, false));
    }
    return sent.handleAsync((reply, e) -> {
      if (e != null) {
        Throwable c = AsyncSteps.cause(e);
        throw c instanceof TimeoutException ? fail(what + " timed out after " + timeout.toMillis() + " ms", false)
            : fail(what + " failed: " + c, false);
      }
      if (!reply.isSuccess()) {
        throw fail(what + " failed: " + reply.getException(), false);
      }
      return reply;
    }, executor);
  }

  static RangeKvException fail(String reason, boolean definitelyNotApplied) {
    return new RangeKvException(RangeKvErrors.unavailable(reason, definitelyNotApplied));
  }
}
