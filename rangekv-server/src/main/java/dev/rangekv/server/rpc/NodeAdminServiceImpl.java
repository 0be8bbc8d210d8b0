package dev.rangekv.server.rpc;

import dev.rangekv.server.raft.RaftGateway;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
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
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.SplitCommand;
import dev.rangekv.server.merge.MergeCoordinator;
import dev.rangekv.server.move.ReplicaChanges;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeStateMachine;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.split.ChildRangeIds;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreException;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import org.apache.ratis.server.RaftServer;

/**
 * Node admin: split a range, add or remove a replica, transfer leadership, merge with the right
 * neighbour (all on the range's leader), and list the replicas this node holds.
 */
public final class NodeAdminServiceImpl extends NodeAdminServiceGrpc.NodeAdminServiceImplBase {
  private final RaftServer server;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final InputLimits limits;
  private final ReplicaChanges changes;
  private final MergeCoordinator merges;
  private final NodeStore store;
  private volatile java.util.function.Consumer<dev.rangekv.proto.admin.SplitRangeResponse> splits = r -> { };

  public NodeAdminServiceImpl(RaftServer server, RaftGateway gateway, ReplicaDirectory directory,
      InputLimits limits, ReplicaChanges changes, MergeCoordinator merges, NodeStore store) {
    this.server = server;
    this.gateway = gateway;
    this.directory = directory;
    this.limits = limits;
    this.changes = changes;
    this.merges = merges;
    this.store = store;
  }

  /**
   * What the leader does once a split it proposed applied here (before the reply): see {@code
   * RangeKvNode}, which hurries the followers and the child's first election. Must not block.
   */
  public NodeAdminServiceImpl onSplit(java.util.function.Consumer<dev.rangekv.proto.admin.SplitRangeResponse> action) {
    this.splits = action;
    return this;
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
   * Proposes a split in the range's group, at the request's split key or, when it is empty, at the
   * store's byte midpoint of the range (found on the leader). The child id is derived from (range id,
   * generation), so a retry proposes the same child and a stale one is refused by the generation check.
   */
  @Override
  public void splitRange(SplitRangeRequest request, StreamObserver<SplitRangeResponse> out) {
    long rangeId = request.getHeader().getRangeId();
    ByteString splitKey = request.getSplitKey();
    if (splitKey.isEmpty()) {
      try {
        splitKey = midpoint(rangeId);
      } catch (RangeKvException e) {
        out.onError(RangeKvErrors.toStatusException(e.error()));
        return;
      }
    }
    Optional<dev.rangekv.proto.RangeKvError> bad = limits.key(splitKey);
    Optional<RangeStateMachine> replica = directory.replica(rangeId);
    Optional<RangeDescriptor> d = replica.flatMap(RangeStateMachine::descriptor);
    if (bad.isEmpty() && d.isPresent() && d.get().start().equals(ProtoValues.key(splitKey))) {
      bad = Optional.of(RangeKvErrors.invalidArgument("split_key", "split key equals the range start"));
    }
    if (bad.isPresent()) {
      out.onError(RangeKvErrors.toStatusException(bad.get()));
      return;
    }
    if (d.isEmpty()) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.rangeNotFound(rangeId)));
      return;
    }
    long generation = request.getHeader().getGeneration();
    var peers = directory.replicaRecord(rangeId);
    if (peers.isEmpty()) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.unavailable(
          "range " + rangeId + " has no replica record on this node", true)));
      return;
    }
    SplitCommand split = SplitCommand.newBuilder()
        .setSplitKey(splitKey)
        .setChildRangeId(ChildRangeIds.childOf(rangeId, generation))
        .addAllPeers(peers)
        .build();
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader()).setSplit(split).build();
    KvServiceImpl.complete(out, gateway.write(cmd).thenApply(r -> {
      if (r.hasSplit()) {
        splits.accept(r.getSplit());
      }
      return r.getSplit();
    }));
  }

  /**
   * The store's byte-midpoint key of the range's current span, on its leader; a typed refusal when this
   * node does not lead it or the range holds fewer than 2 keys (then no split key lies strictly inside).
   */
  private ByteString midpoint(long rangeId) {
    Optional<dev.rangekv.proto.RangeKvError> notLeader = gateway.leaderOrRefusal(rangeId);
    if (notLeader.isPresent()) {
      throw new RangeKvException(notLeader.get());
    }
    RangeDescriptor d = directory.replica(rangeId).flatMap(RangeStateMachine::descriptor)
        .orElseThrow(() -> new RangeKvException(
            RangeKvErrors.unavailable("range " + rangeId + " is not ready on this node", true)));
    Optional<Key> mid;
    try {
      mid = store.findSplitKey(d.start(), d.end());
    } catch (StoreException e) {
      throw new RangeKvException(RangeKvErrors.unavailable(
          "finding the midpoint of range " + rangeId + " failed: " + e.getMessage(), true));
    }
    return mid.map(ProtoValues::bytes).orElseThrow(() -> new RangeKvException(RangeKvErrors.invalidArgument(
        "split_key", "range " + rangeId + " " + d + " holds fewer than 2 keys: it has no midpoint to split at;"
            + " give a split_key")));
  }

}
