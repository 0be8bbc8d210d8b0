package dev.rangekv.server.rpc;

import dev.rangekv.server.raft.RaftGateway;

import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.DropReplicaResponse;
import dev.rangekv.proto.replica.FetchSpanRequest;
import dev.rangekv.proto.replica.FreezeCommand;
import dev.rangekv.proto.replica.FreezeRangeRequest;
import dev.rangekv.proto.replica.FreezeRangeResponse;
import dev.rangekv.proto.replica.PrepareMetaReplicaRequest;
import dev.rangekv.proto.replica.PrepareMetaReplicaResponse;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaResponse;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.replica.SpanChunk;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.move.SpanSource;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The node-to-node replica service: prepare an empty group for a replica being added (of a range or of
 * the meta range), drop a replica,
 * propose a merge freeze on this node (as the range's leader), and stream a span snapshot. Blocking
 * work runs on {@code executor}, never on gRPC's threads.
 */
public final class ReplicaServiceImpl extends ReplicaServiceGrpc.ReplicaServiceImplBase {
  private final LocalReplicas local;
  private final SpanSource source;
  private final RaftGateway gateway;
  private final Executor executor;
  private final MetaReplicas metaReplicas;

  /** This node's side of growing the meta range. */
  public interface MetaReplicas {
    /** Starts an empty meta replica here, recording {@code voters} for restarts. */
    void prepare(List<RaftReplica> voters) throws IOException;
  }

  private volatile java.util.function.LongFunction<CompletableFuture<Boolean>> wakes =
      rangeId -> CompletableFuture.completedFuture(false);

  /** How {@code WakeRange} reopens a dormant replica here: completes with whether it reopened one. */
  public ReplicaServiceImpl onWake(java.util.function.LongFunction<CompletableFuture<Boolean>> wakes) {
    this.wakes = wakes;
    return this;
  }

  private volatile java.util.function.LongFunction<CompletableFuture<Boolean>> opens =
      rangeId -> CompletableFuture.completedFuture(false);

  /**
   * How {@code WakeRange} with {@code reply_when_open} opens a replica here: completes, once the open was
   * tried, with whether this node runs the range's group.
   */
  public ReplicaServiceImpl onOpen(java.util.function.LongFunction<CompletableFuture<Boolean>> opens) {
    this.opens = opens;
    return this;
  }

  @Override
  public void wakeRange(dev.rangekv.proto.replica.WakeRangeRequest request,
      StreamObserver<dev.rangekv.proto.replica.WakeRangeResponse> out) {
    if (request.getReplyWhenOpen()) {
      KvServiceImpl.complete(out, opens.apply(request.getRangeId())
          .thenApply(open -> dev.rangekv.proto.replica.WakeRangeResponse.newBuilder().setOpen(open).build()));
      return;
    }
    KvServiceImpl.complete(out, wakes.apply(request.getRangeId())
        .thenApply(woke -> dev.rangekv.proto.replica.WakeRangeResponse.newBuilder().setWoke(woke).build()));
  }

  public ReplicaServiceImpl(LocalReplicas local, SpanSource source, RaftGateway gateway, Executor executor,
      MetaReplicas metaReplicas) {
    this.local = local;
    this.source = source;
    this.gateway = gateway;
    this.executor = executor;
    this.metaReplicas = metaReplicas;
  }

  @Override
  public void prepareReplica(PrepareReplicaRequest request, StreamObserver<PrepareReplicaResponse> out) {
    KvServiceImpl.complete(out, CompletableFuture.supplyAsync(() -> {
      try {
        local.prepare(request.getRangeId(), request.getKnownList(), request.getBytesPerSecond());
      } catch (IOException e) {
        throw failure("prepare failed: " + e);
      }
      return PrepareReplicaResponse.newBuilder().setSelf(local.self()).build();
    }, executor));
  }

  @Override
  public void prepareMetaReplica(PrepareMetaReplicaRequest request, StreamObserver<PrepareMetaReplicaResponse> out) {
    KvServiceImpl.complete(out, CompletableFuture.supplyAsync(() -> {
      try {
        metaReplicas.prepare(request.getVotersList());
      } catch (IOException | IllegalStateException e) {
        throw failure("preparing the meta replica failed: " + e.getMessage());
      }
      return PrepareMetaReplicaResponse.newBuilder().setSelf(local.self()).build();
    }, executor));
  }

  @Override
  public void dropReplica(DropReplicaRequest request, StreamObserver<DropReplicaResponse> out) {
    KvServiceImpl.complete(out, CompletableFuture.supplyAsync(() -> {
      try {
        local.drop(request.getRangeId(), request.getKeepData(), request.getSuccessorsList());
      } catch (IOException e) {
        throw failure("drop failed: " + e);
      }
      return DropReplicaResponse.newBuilder().setDropped(true).build();
    }, executor));
  }

  @Override
  public void freezeRange(FreezeRangeRequest request, StreamObserver<FreezeRangeResponse> out) {
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader())
        .setFreeze(FreezeCommand.newBuilder().setFrozen(request.getFrozen()).setMergeInto(request.getMergeInto()))
        .build();
    KvServiceImpl.complete(out, gateway.write(cmd).thenApply(r ->
        FreezeRangeResponse.newBuilder().setIndex(r.getAppliedIndex()).setRange(r.getRange()).build()));
  }

  @Override
  public void fetchSpan(FetchSpanRequest request, StreamObserver<SpanChunk> out) {
    source.fetch(request, (ServerCallStreamObserver<SpanChunk>) out);
  }

  private static dev.rangekv.server.replica.RangeKvException failure(String reason) {
    return new dev.rangekv.server.replica.RangeKvException(RangeKvErrors.unavailable(reason, false));
  }
}
