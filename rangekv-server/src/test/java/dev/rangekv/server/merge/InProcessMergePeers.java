package dev.rangekv.server.merge;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.FreezeCommand;
import dev.rangekv.proto.replica.FreezeRangeRequest;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.replica.RangeReplica;
import io.grpc.Status;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@link MergePeers} answered by the other {@link FakeNodes} in the test, as their replica and kv services
 * would: a freeze through the node's gateway, the applied index from its engine, a drop through its local
 * replicas. A node marked {@link #down} fails every call as unreachable (the applied index: unknown); a
 * freeze's reply can be lost after the freeze ran.
 */
final class InProcessMergePeers implements MergePeers {
  private final FakeNodes nodes;
  private final Set<String> down = new HashSet<>();
  private final Set<String> loseNextFreezeReply = new HashSet<>();

  InProcessMergePeers(FakeNodes nodes) {
    this.nodes = nodes;
  }

  /** Calls to {@code node} fail from now on ({@code true}) or reach it again. */
  void down(String node, boolean isDown) {
    if (isDown) {
      down.add(node);
    } else {
      down.remove(node);
    }
  }

  /** The next freeze on {@code node} runs, but its reply is lost (the caller sees the call fail). */
  void loseNextFreezeReply(String node) {
    loseNextFreezeReply.add(node);
  }

  private static <T> CompletableFuture<T> unreachable(String node) {
    return CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription(node + " is down").asRuntimeException());
  }

  @Override
  public CompletableFuture<Long> freeze(String node, FreezeRangeRequest request) {
    if (down.contains(node)) {
      return unreachable(node);
    }
    RangeCommand cmd = RangeCommand.newBuilder().setHeader(request.getHeader())
        .setFreeze(FreezeCommand.newBuilder().setFrozen(request.getFrozen()).setMergeInto(request.getMergeInto()))
        .build();
    CompletableFuture<Long> index = nodes.node(node).gateway().write(cmd).thenApply(CommandResult::getAppliedIndex);
    if (loseNextFreezeReply.remove(node)) {
      return index.handle((i, e) -> {
        throw Status.DEADLINE_EXCEEDED.withDescription("the reply from " + node + " was lost").asRuntimeException();
      });
    }
    return index;
  }

  @Override
  public CompletableFuture<Long> appliedIndex(String node, long rangeId) {
    FakeNodes.Node n = nodes.node(node);
    if (down.contains(node) || n.directory().replica(rangeId).flatMap(RangeReplica::descriptor).isEmpty()) {
      return CompletableFuture.completedFuture(-1L);
    }
    return CompletableFuture.completedFuture(n.engine().status(rangeId).map(GroupStatus::appliedIndex).orElse(-1L));
  }

  @Override
  public CompletableFuture<Void> drop(String node, DropReplicaRequest request) {
    if (down.contains(node)) {
      return unreachable(node);
    }
    FakeNodes.Node n = nodes.node(node);
    try {
      new LocalReplicas(n.engine(), n.store(), n.directory(), null, n.replica())
          .drop(request.getRangeId(), request.getKeepData(), request.getSuccessorsList());
      return CompletableFuture.completedFuture(null);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
