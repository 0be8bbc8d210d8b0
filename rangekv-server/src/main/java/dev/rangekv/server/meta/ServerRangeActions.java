package dev.rangekv.server.meta;

import com.google.protobuf.ByteString;
import dev.rangekv.meta.controller.RangeActions;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.replica.PrepareMetaReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.replica.WakeRangeRequest;
import dev.rangekv.proto.replica.WakeRangeResponse;
import dev.rangekv.server.move.MoveClient;
import dev.rangekv.server.rpc.NodeChannels;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
  /** How long {@link #wakeBeforeOperation} waits for the nodes to answer. */
  private static final Duration WAKE_WAIT = Duration.ofSeconds(15);

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
    wakeBeforeOperation(rangeId);
    SplitRangeResponse r = admin.split(rangeId, splitKey.orElse(ByteString.EMPTY));
    return AdminSplitResponse.newBuilder().setLeft(r.getLeft()).setRight(r.getRight()).build();
  }

  @Override
  public RangeDescriptorProto move(long rangeId, String fromNodeId, String toNodeId) {
    wakeBeforeOperation(rangeId);
    return admin.move(rangeId, fromNodeId, addressOf(toNodeId), bytesPerSecond);
  }

  @Override
  public RangeDescriptorProto addReplica(long rangeId, String toNodeId) {
    wakeBeforeOperation(rangeId);
    return admin.addReplica(rangeId, addressOf(toNodeId), bytesPerSecond);
  }

  @Override
  public RangeDescriptorProto removeReplica(long rangeId, String nodeId) {
    wakeBeforeOperation(rangeId);
    return admin.removeReplica(rangeId, nodeId);
  }

  @Override
  public void transferLeader(long rangeId, String toNodeId) {
    wakeBeforeOperation(rangeId);
    admin.transferLeader(rangeId, toNodeId);
  }

  @Override
  public RangeDescriptorProto merge(long leftRangeId, long rightRangeId) {
    wakeBeforeOperation(leftRangeId);
    wakeBeforeOperation(rightRangeId);
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

  /**
   * Wakes {@code rangeId} before the controller operates on it: a dormant range has no leader to take a
   * step (and a dormant range whose replica died must wake before its repair). Every live node is asked
   * ({@code WakeRange}); each node holding the range dormant reopens its group, the others answer at
   * once. Waits until every node answered (they answer once their group knows a leader) or 15 s; never
   * fails: the step itself then re-locates the leader as usual.
   */
  public void wakeBeforeOperation(long rangeId) {
    List<com.google.common.util.concurrent.ListenableFuture<WakeRangeResponse>> calls = new java.util.ArrayList<>();
    for (NodeRecord n : liveNodes.get()) {
      calls.add(ReplicaServiceGrpc.newFutureStub(channels.channel(n.getAddress()))
          .withDeadlineAfter(WAKE_WAIT.toMillis(), TimeUnit.MILLISECONDS)
          .wakeRange(WakeRangeRequest.newBuilder().setRangeId(rangeId).build()));
    }
    for (var call : calls) {
      try {
        call.get(WAKE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // a node down or slow: the step finds the leader among the others, or fails and is retried
      }
    }
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
