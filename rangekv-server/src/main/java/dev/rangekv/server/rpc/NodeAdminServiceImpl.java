package dev.rangekv.server.rpc;

import dev.rangekv.core.dormancy.DormancyPolicy;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.ChangeReplicasResponse;
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.admin.MergeRangesResponse;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.proto.admin.TransferLeaderResponse;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.merge.MergeCoordinator;
import dev.rangekv.server.move.ReplicaChanges;
import dev.rangekv.server.split.SplitProposer;
import dev.rangekv.server.split.SplitRefusedException;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.concurrent.CompletionException;

/**
 * Node admin, a thin gRPC adapter: split a range ({@code split.SplitProposer}), add or remove a replica
 * and transfer leadership ({@code move.ReplicaChanges}), merge with the right neighbour ({@code
 * merge.MergeCoordinator}); all on the range's leader.
 */
public final class NodeAdminServiceImpl extends NodeAdminServiceGrpc.NodeAdminServiceImplBase {
  private final InputLimits limits;
  private final ReplicaChanges changes;
  private final MergeCoordinator merges;
  private final SplitProposer splits;
  private final DormancyPolicy dormancy;

  /** {@code dormancy}: this node's policy, which says whether a split asked for a dormant child gets one. */
  public NodeAdminServiceImpl(InputLimits limits, ReplicaChanges changes, MergeCoordinator merges, SplitProposer splits,
      DormancyPolicy dormancy) {
    this.limits = limits;
    this.changes = changes;
    this.merges = merges;
    this.splits = splits;
    this.dormancy = dormancy;
  }

  /** Adds a replica (on the range's leader): see {@code move.ReplicaChanges}. */
  @Override
  public void addReplica(AddReplicaRequest request, StreamObserver<ChangeReplicasResponse> out) {
    KvServiceImpl.complete(out, changes.add(request).thenApply(d -> ChangeReplicasResponse.newBuilder().setRange(d).build()));
  }

  @Override
  public void removeReplica(RemoveReplicaRequest request, StreamObserver<ChangeReplicasResponse> out) {
    KvServiceImpl.complete(out, changes.remove(request).thenApply(d -> ChangeReplicasResponse.newBuilder().setRange(d).build()));
  }

  @Override
  public void transferLeader(TransferLeaderRequest request, StreamObserver<TransferLeaderResponse> out) {
    KvServiceImpl.complete(out, changes.transfer(request)
        .thenApply(leader -> TransferLeaderResponse.newBuilder().setLeaderNodeId(leader).build()));
  }

  /** Merges a range with its right neighbour (on the left's leader): see {@code merge.MergeCoordinator}. */
  @Override
  public void mergeRanges(MergeRangesRequest request, StreamObserver<MergeRangesResponse> out) {
    KvServiceImpl.complete(out, merges.merge(request).thenApply(d -> MergeRangesResponse.newBuilder().setMerged(d).build()));
  }

  /**
   * Splits a range (on its leader): see {@code split.SplitProposer}. Only the wire checks are here: a
   * given split key within the key limits.
   */
  @Override
  public void splitRange(SplitRangeRequest request, StreamObserver<SplitRangeResponse> out) {
    Optional<RangeKvError> bad = request.getSplitKey().isEmpty() ? Optional.empty() : limits.key(request.getSplitKey());
    if (bad.isPresent()) {
      out.onError(RangeKvErrors.toStatusException(bad.get()));
      return;
    }
    splits.split(request.getHeader(), request.getSplitKey(), request.getChildRangeId(),
            dormancy.childBornDormant(request.getChildDormant()))
        .whenComplete((r, e) -> {
      if (e == null) {
        out.onNext(r);
        out.onCompleted();
      } else {
        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        out.onError(RangeKvErrors.toStatusException(c instanceof SplitRefusedException refused ? refused.error()
            : KvServiceImpl.toError(c)));
      }
    });
  }
}
