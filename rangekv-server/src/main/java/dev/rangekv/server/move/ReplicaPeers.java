package dev.rangekv.server.move;

import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.PrepareReplicaRequest;
import dev.rangekv.proto.replica.RaftReplica;
import java.util.concurrent.CompletableFuture;

/**
 * What a range's leader asks of other nodes while it changes the range's replicas: {@link
 * GrpcReplicaPeers} over the node's peer channels; tests answer from other nodes in the same process.
 * Implementations are thread-safe.
 */
public interface ReplicaPeers {
  /**
   * Has the node at client address {@code address} prepare an empty replica (see {@link
   * LocalReplicas#prepare}); completes with that node's replica record.
   */
  CompletableFuture<RaftReplica> prepare(String address, PrepareReplicaRequest request);

  /** Drops node {@code nodeId}'s replica as {@code request} says; fails when the node did not. */
  CompletableFuture<Void> drop(String nodeId, DropReplicaRequest request);
}
