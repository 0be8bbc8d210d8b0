package dev.rangekv.server.rpc;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.NodeAdminServiceGrpc;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.SplitRangeRequest;
import dev.rangekv.proto.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.SplitCommand;
import dev.rangekv.server.replica.RangeGroups;
import dev.rangekv.server.replica.RangeStateMachine;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.split.ChildRangeIds;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.Optional;
import org.apache.ratis.server.RaftServer;

/**
 * Node admin: split a range (on its leader) and list the replicas this node holds. Moves, leader
 * transfers and merges come with later issues.
 */
public final class NodeAdminServiceImpl extends NodeAdminServiceGrpc.NodeAdminServiceImplBase {
  private final String nodeId;
  private final RaftServer server;
  private final RaftGateway gateway;
  private final ReplicaDirectory directory;
  private final InputLimits limits;

  public NodeAdminServiceImpl(String nodeId, RaftServer server, RaftGateway gateway, ReplicaDirectory directory, InputLimits limits) {
    this.nodeId = nodeId;
    this.server = server;
    this.gateway = gateway;
    this.directory = directory;
    this.limits = limits;
  }

  /**
   * Proposes a split in the range's group. The child id is derived from (range id, generation), so a
   * retry proposes the same child and a stale one is refused by the generation check.
   */
  @Override
  public void splitRange(SplitRangeRequest request, StreamObserver<SplitRangeResponse> out) {
    long rangeId = request.getHeader().getRangeId();
    Optional<dev.rangekv.proto.RangeKvError> bad = limits.key(request.getSplitKey());
    Optional<RangeStateMachine> replica = directory.replica(rangeId);
    Optional<RangeDescriptor> d = replica.flatMap(RangeStateMachine::descriptor);
    if (bad.isEmpty() && d.isPresent() && d.get().start().equals(ProtoValues.key(request.getSplitKey()))) {
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
        .setSplitKey(request.getSplitKey())
        .setChildRangeId(ChildRangeIds.childOf(rangeId, generation))
        .addAllPeers(peers)
        .build();
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader()).setSplit(split).build();
    KvServiceImpl.complete(out, gateway.write(cmd).thenApply(CommandResult::getSplit));
  }

  @Override
  public void listRanges(ListRangesRequest request, StreamObserver<ListRangesResponse> out) {
    ListRangesResponse.Builder b = ListRangesResponse.newBuilder().setNodeId(nodeId);
    for (RangeStateMachine r : directory.replicas()) {
      Optional<RangeDescriptor> d = r.descriptor();
      if (d.isEmpty()) {
        continue;
      }
      ReplicaStatus.Builder s = ReplicaStatus.newBuilder().setRange(directory.toProto(d.get()));
      try {
        RaftServer.Division division = server.getDivision(RangeGroups.groupId(r.rangeId()));
        s.setLeader(division.getInfo().isLeader())
            .setLeaderNodeId(division.getInfo().getLeaderId() == null ? "" : division.getInfo().getLeaderId().toString())
            .setAppliedIndex(division.getInfo().getLastAppliedIndex());
      } catch (IOException | IllegalStateException e) {
        continue; // the group closed since the directory listed it, or is still starting
      }
      b.addReplicas(s);
    }
    out.onNext(b.build());
    out.onCompleted();
  }

}
