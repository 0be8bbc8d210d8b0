package dev.rangekv.server.merge;

import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.calls.UnaryCalls;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.FreezeRangeRequest;
import dev.rangekv.proto.replica.FreezeRangeResponse;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.server.move.AsyncSteps;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.replica.ReplicaDirectory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MergePeers} over gRPC: the replica service's freeze and drop, the applied index from the kv
 * service's replica listing; each call with its own deadline. Thread-safe.
 */
public final class GrpcMergePeers implements MergePeers {
  private static final Logger log = LoggerFactory.getLogger(GrpcMergePeers.class);
  private static final long FREEZE_MILLIS = 15_000;
  private static final long DROP_MILLIS = 15_000;
  private static final long LISTING_MILLIS = 2_000;

  private final PeerChannels channels;
  private final ReplicaDirectory directory;

  public GrpcMergePeers(PeerChannels channels, ReplicaDirectory directory) {
    this.channels = channels;
    this.directory = directory;
  }

  @Override
  public CompletableFuture<Long> freeze(String node, FreezeRangeRequest request) {
    return UnaryCalls.future(replicaStub(node, FREEZE_MILLIS)::freezeRange, request)
        .thenApply(FreezeRangeResponse::getIndex);
  }

  @Override
  public CompletableFuture<Long> appliedIndex(String node, long rangeId) {
    KvServiceGrpc.KvServiceStub stub = KvServiceGrpc.newStub(channels.channel(directory.addressOf(node)))
        .withDeadlineAfter(LISTING_MILLIS, TimeUnit.MILLISECONDS);
    return UnaryCalls.future(stub::listRanges, ListRangesRequest.getDefaultInstance()).handle((r, e) -> {
      if (e != null) {
        log.debug("applied index unknown node={} rangeId={} error={}", node, rangeId, AsyncSteps.cause(e).toString());
        return -1L;
      }
      for (ReplicaStatus s : r.getReplicasList()) {
        if (s.getRange().getRangeId() == rangeId) {
          return s.getAppliedIndex();
        }
      }
      return -1L;
    });
  }

  @Override
  public CompletableFuture<Void> drop(String node, DropReplicaRequest request) {
    return UnaryCalls.future(replicaStub(node, DROP_MILLIS)::dropReplica, request).thenApply(r -> null);
  }

  private ReplicaServiceGrpc.ReplicaServiceStub replicaStub(String node, long timeoutMillis) {
    return ReplicaServiceGrpc.newStub(channels.channel(directory.addressOf(node)))
        .withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS);
  }
}
