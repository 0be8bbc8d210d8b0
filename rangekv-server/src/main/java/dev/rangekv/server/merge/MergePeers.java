package dev.rangekv.server.merge;

import dev.rangekv.proto.replica.DropReplicaRequest;
import dev.rangekv.proto.replica.FreezeRangeRequest;
import java.util.concurrent.CompletableFuture;

/**
 * What a merge asks of the other nodes holding the two ranges: {@link GrpcMergePeers} over the node's
 * peer channels; tests answer from other nodes in the same process. Implementations are thread-safe.
 */
public interface MergePeers {
  /**
   * Proposes {@code request}'s freeze (or unfreeze) on {@code node}, the right range's leader as this node
   * believes; completes with the command's log index, or fails as the node's gateway refused it.
   */
  CompletableFuture<Long> freeze(String node, FreezeRangeRequest request);

  /** The index {@code node}'s replica of {@code rangeId} applied; -1 when unknown. Never fails. */
  CompletableFuture<Long> appliedIndex(String node, long rangeId);

  /** Drops {@code node}'s replica as {@code request} says; fails when the node did not. */
  CompletableFuture<Void> drop(String node, DropReplicaRequest request);
}
