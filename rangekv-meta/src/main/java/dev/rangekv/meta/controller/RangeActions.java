package dev.rangekv.meta.controller;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.List;
import java.util.Optional;

/**
 * The steps the controller executes on ranges, addressed by range id and node ids. The server
 * implements them with node-admin RPCs sent to each range's current leader (re-locating it on
 * NOT_LEADER / RANGE_MOVED); each call blocks until the step is done and throws when it failed, leaving
 * the range fully replicated on its old nodes.
 */
public interface RangeActions {
  /** Splits {@code rangeId} at {@code splitKey}, or at the storage engine's midpoint key when empty. */
  AdminSplitResponse split(long rangeId, Optional<ByteString> splitKey);

  /** Adds a replica on {@code toNodeId}, moves leadership off {@code fromNodeId} if it leads, removes it. */
  RangeDescriptorProto move(long rangeId, String fromNodeId, String toNodeId);

  /** Adds a replica on {@code toNodeId} (up-replication after a node died). */
  RangeDescriptorProto addReplica(long rangeId, String toNodeId);

  /** Removes the replica on {@code nodeId} (which must not lead; a dead node never does). */
  RangeDescriptorProto removeReplica(long rangeId, String nodeId);

  /** Moves the range's leadership to its replica on {@code toNodeId}. */
  void transferLeader(long rangeId, String toNodeId);

  /** Merges {@code leftRangeId} with its right neighbour {@code rightRangeId} (same replica set). */
  RangeDescriptorProto merge(long leftRangeId, long rightRangeId);

  /**
   * Starts an empty meta replica on {@code node}, which joins the meta range when the leader changes its
   * voters to {@code voters} (recorded on the node for its restarts).
   */
  void prepareMetaReplica(NodeRecord node, List<NodeRecord> voters);
}
