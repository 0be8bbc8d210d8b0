package dev.rangekv.server.move;

import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.Status;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@link ReplicaPeers} answered by the other {@link FakeNodes} in the test, as their replica service would
 * (a prepare and a drop through the node's {@link LocalReplicas}). An address no node has, or a node
 * marked {@link #down}, fails the call as unreachable.
 */
final class InProcessReplicaPeers implements ReplicaPeers {
  private final FakeNodes nodes;
  private final Path transfers;
  private final Set<String> down = new HashSet<>();

  InProcessReplicaPeers(FakeNodes nodes, Path transfers) {
    this.nodes = nodes;
    this.transfers = transfers;
  }

  void down(String nodeId) {
    down.add(nodeId);
  }

  private Optional<FakeNodes.Node> reachable(String nodeId) {
    return nodes.all().stream().filter(n -> n.id().equals(nodeId) && !down.contains(nodeId)).findFirst();
  }

  private LocalReplicas local(FakeNodes.Node n) {
    // the fetch itself goes through the node's directory (FakeNodes wires the span transfer in process)
    return new LocalReplicas(n.engine(), n.store(), n.directory(),
        new SpanFetcher(n.store(), n.directory(), new PeerChannels(), transfers.resolve(n.id()), Runnable::run),
        n.replica());
  }

  private static <T> CompletableFuture<T> unreachable(String who) {
    return CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription(who + " is down").asRuntimeException());
  }

  @Override
  public CompletableFuture<RaftReplica> prepare(String address, PrepareReplicaRequest request) {
    Optional<FakeNodes.Node> n = nodes.all().stream()
        .filter(x -> FakeNodes.clientAddress(x.id()).equals(address)).findFirst().flatMap(x -> reachable(x.id()));
    if (n.isEmpty()) {
      return unreachable(address);
    }
    try {
      local(n.get()).prepare(request.getRangeId(), request.getKnownList(), request.getBytesPerSecond());
      return CompletableFuture.completedFuture(n.get().replica());
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Void> drop(String nodeId, DropReplicaRequest request) {
    Optional<FakeNodes.Node> n = reachable(nodeId);
    if (n.isEmpty()) {
      return unreachable(nodeId);
    }
    try {
      local(n.get()).drop(request.getRangeId(), request.getKeepData(), request.getSuccessorsList());
      return CompletableFuture.completedFuture(null);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
