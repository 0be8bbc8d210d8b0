package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.proto.calls.UnaryCalls;
import dev.rangekv.proto.replica.PrepareMetaReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import io.grpc.Channel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The outbound replica-service call that grows the meta range ({@code PrepareMetaReplica}): the wire
 * edge of {@link MetaVoterStep}, as {@link StepCalls} is of the operators' steps. Non-blocking;
 * thread-safe (holds no state but its channels).
 */
final class MetaReplicaCalls {
  /** A node starts an empty meta replica in well under this; a slower one is retried by the next change. */
  private static final long PREPARE_DEADLINE_SECONDS = 30;

  private final Function<String, Channel> channels;

  MetaReplicaCalls(Function<String, Channel> channels) {
    this.channels = channels;
  }

  /** Asks {@code node} to start an empty meta replica of the group {@code voters} will form. */
  CompletableFuture<Void> prepare(NodeInfo node, List<NodeInfo> voters) {
    PrepareMetaReplicaRequest.Builder request = PrepareMetaReplicaRequest.newBuilder();
    for (NodeInfo v : voters) {
      request.addVoters(RaftReplica.newBuilder().setNodeId(v.nodeId()).setRaftAddress(v.raftAddress())
          .setClientAddress(v.address()));
    }
    return UnaryCalls.future(ReplicaServiceGrpc.newStub(channels.apply(node.address()))
        .withDeadlineAfter(PREPARE_DEADLINE_SECONDS, TimeUnit.SECONDS)::prepareMetaReplica, request.build())
        .thenApply(answer -> null);
  }
}
