package dev.rangekv.server.meta;

import com.google.protobuf.ByteString;
import dev.rangekv.meta.controller.RangeActions;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.SplitRangeResponse;
import dev.rangekv.proto.replica.PrepareMetaReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.move.MoveClient;
import dev.rangekv.server.rpc.NodeChannels;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The controller's range actions carried out through the node-admin API of each range's leader (via
 * {@link MoveClient}, which re-locates the leader on NOT_LEADER / RANGE_MOVED). Node ids are turned into
 * client addresses with the meta range's node records.
 */
public final class ServerRangeActions implements RangeActions, AutoCloseable {
  private final Supplier<List<NodeRecord>> liveNodes;
  private final MoveClient admin;
  private final NodeChannels channels;
  private final long bytesPerSecond;

  /**
   * @param liveNodes the nodes to look ranges up on and move them to (the meta range's live records)
   * @param deadline how long one step may take to find a leader that answers
   * @param bytesPerSecond span snapshot bandwidth limit of a move (0 = unlimited)
   * @param channels this node's channels to other nodes (shared, not closed here)
   * @param replicasOf the client addresses of a range's replicas in the meta leader's own map (empty
   *     when unknown): ranges are located by asking those, not every node
   */
  public ServerRangeActions(Supplier<List<NodeRecord>> liveNodes, Duration deadline, long bytesPerSecond,
      NodeChannels channels, LongFunction<List<String>> replicasOf) {
    this.liveNodes = liveNodes;
    this.admin = new MoveClient(() -> liveNodes.get().stream().map(NodeRecord::getAddress).toList(), deadline, channels,
        replicasOf);
    this.channels = channels;
    this.bytesPerSecond = bytesPerSecond;
  }

  @Override
  public AdminSplitResponse split(long rangeId, Optional<ByteString> splitKey) {
    SplitRangeResponse r = admin.split(rangeId, splitKey.orElse(ByteString.EMPTY));
    return AdminSplitResponse.newBuilder().setLeft(r.getLeft()).setRight(r.getRight()).build();
  }

  @Override
  public RangeDescriptorProto move(long rangeId, String fromNodeId, String toNodeId) {
    return admin.move(rangeId, fromNodeId, addressOf(toNodeId), bytesPerSecond);
  }

  @Override
  public RangeDescriptorProto addReplica(long rangeId, String toNodeId) {
    return admin.addReplica(rangeId, addressOf(toNodeId), bytesPerSecond);
  }

  @Override
  public RangeDescriptorProto removeReplica(long rangeId, String nodeId) {
    return admin.removeReplica(rangeId, nodeId);
  }

  @Override
  public void transferLeader(long rangeId, String toNodeId) {
    admin.transferLeader(rangeId, toNodeId);
  }

  @Override
  public RangeDescriptorProto merge(long leftRangeId, long rightRangeId) {
    return admin.merge(leftRangeId, rightRangeId);
  }

  @Override
  public void prepareMetaReplica(NodeRecord node, List<NodeRecord> voters) {
    PrepareMetaReplicaRequest.Builder request = PrepareMetaReplicaRequest.newBuilder();
    for (NodeRecord v : voters) {
      request.addVoters(RaftReplica.newBuilder().setNodeId(v.getNodeId()).setRaftAddress(v.getRaftAddress())
          .setClientAddress(v.getAddress()));
    }
    channels.replicaService(node.getAddress(), Duration.ofSeconds(30)).prepareMetaReplica(request.build());
  }

  private String addressOf(String nodeId) {
    return liveNodes.get().stream().filter(n -> n.getNodeId().equals(nodeId)).map(NodeRecord::getAddress).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("node " + nodeId + " is not a live node of the cluster"));
  }

  @Override
  public void close() {
    admin.close();
  }
}
