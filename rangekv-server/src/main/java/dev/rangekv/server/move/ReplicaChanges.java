package dev.rangekv.server.move;

import dev.rangekv.proto.AddReplicaRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RemoveReplicaRequest;
import dev.rangekv.proto.TransferLeaderRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.ChangeReplicasCommand;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.rpc.NodeChannels;
import dev.rangekv.server.rpc.RaftGateway;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
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
 * <p>A new replica joins directly as a staged voter rather than as a Ratis listener promoted later:
 * staging already keeps it out of the majority until it caught up, and listeners added at runtime
 * report a misleading role in 3.3.0 (shared/notes/ratis.md §3), so promotion would add a second
 * configuration change without adding safety. A failed catch-up (target down, fetch failing) fails
 * the configuration change after Ratis' staging timeout; the add then removes the half-made replica and
 * the range keeps its old replicas.
 */
public final class ReplicaChanges {
  private static final Logger log = LoggerFactory.getLogger(ReplicaChanges.class);

  private final RaftServer server;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final NodeChannels channels;
  private final LocalReplicas local;
  private final Executor executor;
  private final MoveOptions options;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  public ReplicaChanges(RaftServer server, RaftGateway gateway, ReplicaDirectory directory, NodeChannels channels,
      LocalReplicas local, Executor executor, MoveOptions options) {
    this.server = server;
    this.gateway = gateway;
    this.directory = directory;
    this.channels = channels;
    this.local = local;
    this.executor = executor;
    this.options = options;
  }

  public CompletableFuture<RangeDescriptorProto> add(AddReplicaRequest request) {
    return CompletableFuture.supplyAsync(() -> addNow(request), executor);
  }

  public CompletableFuture<RangeDescriptorProto> remove(RemoveReplicaRequest request) {
    return CompletableFuture.supplyAsync(() -> removeNow(request), executor);
  }

  public CompletableFuture<String> transfer(TransferLeaderRequest request) {
    return CompletableFuture.supplyAsync(() -> transferNow(request), executor);
  }

  private RangeDescriptorProto addNow(AddReplicaRequest request) {
    LeaderContext ctx = LeaderContext.of(server, gateway, directory, request.getHeader());
    List<RaftReplica> known = new ArrayList<>(directory.replicaRecord(ctx.rangeId()));
    if (known.stream().noneMatch(r -> r.getNodeId().equals(local.self().getNodeId()))) {
      known.add(local.self());
    }
    RaftReplica target;
    try {
      target = channels.replicaService(request.getAddress(), Duration.ofSeconds(30))
          .prepareReplica(PrepareReplicaRequest.newBuilder().setRangeId(ctx.rangeId()).addAllKnown(known)
              .setBytesPerSecond(request.getBytesPerSecond()).build())
          .getSelf();
    } catch (RuntimeException e) {
      throw fail("preparing the new replica at " + request.getAddress() + " failed: " + e, true);
    }
    directory.learnAddresses(List.of(target));
    if (!ctx.peerIds().contains(target.getNodeId())) {
      List<RaftPeer> next = new ArrayList<>(ctx.peers());
      next.add(RaftPeer.newBuilder().setId(target.getNodeId()).setAddress(target.getRaftAddress()).build());
      long t0 = System.nanoTime();
      try {
        setConfiguration(ctx, next, options.catchUpTimeout());
      } catch (RuntimeException e) {
        abortAdd(ctx, target);
        throw fail("adding replica " + target.getNodeId() + " of range " + ctx.rangeId() + " aborted: " + e.getMessage(),
            true);
      }
      log.info("replica caught up and joined rangeId={} node={} ms={}", ctx.rangeId(), target.getNodeId(),
          (System.nanoTime() - t0) / 1_000_000);
    }
    return recordReplicas(request.getHeader(), ctx);
  }

  /**
   * Puts the configuration back without the target (if it got in) and drops its half-made replica. When
   * the configuration cannot be restored (this node lost the leadership, say) the target may be a voter
   * now, so its replica is kept: dropping a voter would cost the range a member, and with one other
   * replica down its quorum. Repair trims a surplus replica later.
   */
  private void abortAdd(LeaderContext ctx, RaftReplica target) {
    try {
      if (ctx.division().getRaftConf().getAllPeers().stream().anyMatch(p -> p.getId().toString().equals(target.getNodeId()))) {
        List<RaftPeer> without = ctx.peers().stream().filter(p -> !p.getId().toString().equals(target.getNodeId())).toList();
        setConfiguration(ctx, without, Duration.ofSeconds(30));
      }
    } catch (RuntimeException e) {
      log.warn("abort could not restore configuration, keeping the new replica rangeId={} node={} error={}",
          ctx.rangeId(), target.getNodeId(), e.toString());
      return;
    }
    dropOn(target.getNodeId(), ctx.rangeId(), false, List.of());
  }

  private RangeDescriptorProto removeNow(RemoveReplicaRequest request) {
    LeaderContext ctx = LeaderContext.of(server, gateway, directory, request.getHeader());
    String node = request.getNodeId();
    if (node.equals(local.self().getNodeId())) {
      throw new RangeKvException(RangeKvErrors.invalidArgument("replica",
          "the leader cannot remove itself; transfer leadership first"));
    }
    if (ctx.peerIds().contains(node)) {
      List<RaftPeer> without = ctx.peers().stream().filter(p -> !p.getId().toString().equals(node)).toList();
      if (without.isEmpty()) {
        throw new RangeKvException(RangeKvErrors.invalidArgument("replica", "a range needs at least one replica"));
      }
      setConfiguration(ctx, without, Duration.ofSeconds(30));
    }
    RangeDescriptorProto next = recordReplicas(request.getHeader(), ctx);
    dropOn(node, ctx.rangeId(), false, List.of(next));
    return next;
  }

  private String transferNow(TransferLeaderRequest request) {
    LeaderContext ctx = LeaderContext.of(server, gateway, directory, request.getHeader());
    String target = request.getNodeId();
    if (target.equals(local.self().getNodeId())) {
      return target;
    }
    if (!ctx.peerIds().contains(target)) {
      throw new RangeKvException(RangeKvErrors.invalidArgument("replica", target + " is not a replica of range " + ctx.rangeId()));
    }
    RaftClientReply reply;
    gateway.transferStarted(ctx.rangeId(), target);
    try {
      reply = await(() -> server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, server.getId(),
          ctx.division().getGroup().getGroupId(), callIds.incrementAndGet(), RaftPeerId.valueOf(target), 10_000)),
          Duration.ofSeconds(15), "transfer leadership");
    } catch (RangeKvException e) {
      stepDownIfStuck(ctx, e);
      throw e;
    } finally {
      gateway.transferEnded(ctx.rangeId());
    }
    log.info("leadership transferred rangeId={} to={}", ctx.rangeId(), target);
    return reply.isSuccess() ? target : "";
  }

  /**
   * Ratis 3.3.0 leaves a leadership transfer that failed to start pending for good
   * ({@code TransferLeadership.start} completes the request's reply but never clears it; only a
   * timed-out transfer or a new leader clears it): the leader then refuses every write and every
   * configuration change with {@code LeaderSteppingDownException} until its leadership changes, and a
   * transfer to any other replica is refused as "a previous request exists". It happens when the target
   * does not answer StartLeaderElection at once, e.g. it died just before: the range would stay unwritable
   * and unrepairable (ControllerRepairIT). Stepping down is the one public way out: the election that
   * follows (among the live replicas; this one may win again) clears the pending transfer.
   */
  private void stepDownIfStuck(LeaderContext ctx, RangeKvException failure) {
    String message = String.valueOf(failure.getMessage());
    boolean notStarted = message.contains("COMPLETED_EXCEPTIONALLY") || message.contains("NULL_LOG_APPENDER")
        || message.contains("NULL_FOLLOWER") || message.contains("a previous");
    if (!notStarted || !ctx.division().getInfo().isLeader()) {
      return;
    }
    log.warn("leadership transfer failed to start, stepping down to clear it rangeId={} error={}", ctx.rangeId(),
        message);
    try {
      server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, server.getId(),
          ctx.division().getGroup().getGroupId(), callIds.incrementAndGet(), null, 5_000))
          .get(10, TimeUnit.SECONDS);
    } catch (IOException | ExecutionException | TimeoutException e) {
      log.warn("step down failed rangeId={} error={}", ctx.rangeId(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Proposes the replica set of the committed configuration (descriptor order kept, new members last)
   * at the request's generation; returns the new descriptor.
   */
  private RangeDescriptorProto recordReplicas(RangeHeader header, LeaderContext ctx) {
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
    try {
      RangeDescriptorProto next = gateway.write(cmd).get(30, TimeUnit.SECONDS).getRange();
      log.info("replicas recorded rangeId={} replicas={} generation={}", ctx.rangeId(),
          replicas.stream().map(RaftReplica::getNodeId).toList(), next.getGeneration());
      return next;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RangeKvException rke ? rke : fail("recording replicas failed: " + e.getCause(), false);
    } catch (TimeoutException e) {
      throw fail("recording replicas timed out", false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw fail("interrupted", false);
    }
  }

  private void setConfiguration(LeaderContext ctx, List<RaftPeer> servers, Duration timeout) {
    SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(servers)
        .setServersInCurrentConf(ctx.peers())
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .build();
    RaftClientReply reply = await(() -> server.setConfigurationAsync(new SetConfigurationRequest(clientId, server.getId(),
        ctx.division().getGroup().getGroupId(), callIds.incrementAndGet(), args)), timeout, "set configuration");
    if (!reply.isSuccess()) {
      throw fail("configuration change failed: " + reply.getException(), false);
    }
  }

  /** Best effort: a node that is down keeps its stale replica until it is dropped again. */
  void dropOn(String nodeId, long rangeId, boolean keepData, List<RangeDescriptorProto> successors) {
    try {
      if (nodeId.equals(local.self().getNodeId())) {
        local.drop(rangeId, keepData, successors);
        return;
      }
      String address = directory.addressOf(nodeId);
      channels.replicaService(address, Duration.ofSeconds(15)).dropReplica(DropReplicaRequest.newBuilder()
          .setRangeId(rangeId).setKeepData(keepData).addAllSuccessors(successors).build());
    } catch (IOException | RuntimeException e) {
      log.warn("dropping replica failed rangeId={} node={} error={}", rangeId, nodeId, e.toString());
    }
  }

  private interface AsyncCall {
    CompletableFuture<RaftClientReply> call() throws IOException;
  }

  private static RaftClientReply await(AsyncCall call, Duration timeout, String what) {
    try {
      RaftClientReply reply = call.call().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!reply.isSuccess()) {
        throw fail(what + " failed: " + reply.getException(), false);
      }
      return reply;
    } catch (IOException e) {
      throw fail(what + " failed: " + e, false);
    } catch (ExecutionException e) {
      throw fail(what + " failed: " + e.getCause(), false);
    } catch (TimeoutException e) {
      throw fail(what + " timed out after " + timeout.toMillis() + " ms", false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw fail("interrupted during " + what, false);
    }
  }

  static RangeKvException fail(String reason, boolean definitelyNotApplied) {
    return new RangeKvException(RangeKvErrors.unavailable(reason, definitelyNotApplied));
  }
}
