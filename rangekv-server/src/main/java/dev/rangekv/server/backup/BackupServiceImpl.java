package dev.rangekv.server.backup;

import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.ExportRangeRequest;
import dev.rangekv.proto.backup.IngestStagedRequest;
import dev.rangekv.proto.backup.IngestStagedResponse;
import dev.rangekv.proto.backup.StageChunk;
import dev.rangekv.proto.backup.StageFilesResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
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
  private final SpanSource source;
  private final RaftGateway gateway;
  private final Executor executor;

  public BackupServiceImpl(NodeStore store, SpanSource source, RaftGateway gateway, Executor executor) {
    this.store = store;
    this.source = source;
    this.gateway = gateway;
    this.executor = executor;
  }

  @Override
  public void exportRange(ExportRangeRequest request, StreamObserver<SpanChunk> out) {
    source.fetch(FetchSpanRequest.newBuilder()
        .setRangeId(request.getRangeId())
        .setBytesPerSecond(request.getBytesPerSecond())
        .build(), (ServerCallStreamObserver<SpanChunk>) out);
  }

  @Override
  public StreamObserver<StageChunk> stageFiles(StreamObserver<StageFilesResponse> out) {
    return new StageReceiver(store, executor, out);
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
      Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      out.onError(RangeKvErrors.toStatusException(e instanceof RangeKvException k ? k.error()
          : RangeKvErrors.unavailable("ingest failed: " + e, false)));
    });
  }
}
