package dev.rangekv.server.backup;

import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.DiscardStagedRequest;
import dev.rangekv.proto.backup.DiscardStagedResponse;
import dev.rangekv.proto.backup.ExportRangeRequest;
import dev.rangekv.server.replica.RestoreStaging;
import dev.rangekv.proto.backup.IngestStagedRequest;
import dev.rangekv.proto.backup.IngestStagedResponse;
import dev.rangekv.proto.backup.StageChunk;
import dev.rangekv.proto.backup.StageFilesResponse;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.util.Optional;
import dev.rangekv.proto.replica.FetchSpanRequest;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.SpanChunk;
import dev.rangekv.server.move.SpanSource;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.storage.NodeStore;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The backup service of a node (admin role): a range's span as a move sends it (one applied point,
 * SST files in chunks, paced), restore staging, and the ingest entry proposed on the range's leader.
 */
public final class BackupServiceImpl extends BackupServiceGrpc.BackupServiceImplBase {
  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final SpanSource source;
  private final RaftGateway gateway;
  private final Executor executor;

  public BackupServiceImpl(NodeStore store, ReplicaDirectory directory, SpanSource source, RaftGateway gateway,
      Executor executor) {
    this.store = store;
    this.directory = directory;
    this.source = source;
    this.gateway = gateway;
    this.executor = executor;
  }

  /**
   * Exports on the range's leader only, after a linearizable read of the range: the replica has then
   * applied every write acknowledged before the request, so the export holds all of them (a follower's
   * point may lag behind writes the client already saw succeed).
   */
  @Override
  public void exportRange(ExportRangeRequest request, StreamObserver<SpanChunk> out) {
    long rangeId = request.getRangeId();
    // a dormant range is woken here and answered with a retryable UNAVAILABLE; a follower, NOT_LEADER
    Optional<dev.rangekv.proto.RangeKvError> refused = gateway.leaderOrRefusal(rangeId);
    if (refused.isPresent()) {
      out.onError(RangeKvErrors.toStatusException(refused.get()));
      return;
    }
    Optional<RangeDescriptor> d = directory.replica(rangeId).flatMap(RangeReplica::descriptor);
    if (d.isEmpty()) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.rangeNotFound(rangeId)));
      return;
    }
    RangeHeader header = RangeHeader.newBuilder().setRangeId(rangeId).setGeneration(d.get().generation()).build();
    RangeQuery barrier = RangeQuery.newBuilder().setHeader(header)
        .setGet(GetRequest.newBuilder().setHeader(header).setKey(ProtoValues.bytes(d.get().start()))).build();
    gateway.read(barrier).whenComplete((r, error) -> {
      if (error != null) {
        out.onError(RangeKvErrors.toStatusException(toError(error)));
        return;
      }
      source.fetch(FetchSpanRequest.newBuilder()
          .setRangeId(rangeId)
          .setBytesPerSecond(request.getBytesPerSecond())
          .build(), (ServerCallStreamObserver<SpanChunk>) out);
    });
  }

  private static dev.rangekv.proto.RangeKvError toError(Throwable error) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof RangeKvException k ? k.error() : RangeKvErrors.unavailable("backup failed: " + e, false);
  }

  @Override
  public StreamObserver<StageChunk> stageFiles(StreamObserver<StageFilesResponse> out) {
    return new StageReceiver(store, executor, out);
  }

  /**
   * Deletes a range's staged files when the restore that staged them gave up before proposing the
   * ingest entry (a sender that proposed it must not ask: a replica still applying it needs them).
   */
  @Override
  public void discardStaged(DiscardStagedRequest request, StreamObserver<DiscardStagedResponse> out) {
    executor.execute(() -> {
      try {
        java.nio.file.Path dir = RestoreStaging.dir(store, request.getRestoreId(), request.getRangeId());
        boolean existed = java.nio.file.Files.exists(dir);
        RestoreStaging.delete(dir);
        out.onNext(DiscardStagedResponse.newBuilder().setDeleted(existed).build());
        out.onCompleted();
      } catch (java.io.IOException | IllegalArgumentException e) {
        out.onError(io.grpc.Status.INVALID_ARGUMENT.withDescription(e.toString()).asRuntimeException());
      }
    });
  }

  @Override
  public void ingestStaged(IngestStagedRequest request, StreamObserver<IngestStagedResponse> out) {
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader()).setIngest(request.getIngest()).build();
    gateway.write(cmd).whenComplete((r, error) -> {
      if (error == null) {
        out.onNext(IngestStagedResponse.newBuilder().setAppliedIndex(r.getAppliedIndex()).setRange(r.getRange()).build());
        out.onCompleted();
        return;
      }
      out.onError(RangeKvErrors.toStatusException(toError(error)));
    });
  }
}
