package dev.rangekv.server.rpc;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import java.util.Optional;

/**
 * The replicas a node holds, as its public {@code KvService.ListRanges} answers: each open group's
 * descriptor, leadership and applied index, and the ranges dormant here (group closed). Clients use it
 * to route when the meta range cannot answer; tools to see a node.
 */
public final class ReplicaListing {
  private final String nodeId;
  private final RangeConsensus consensus;
  private final ReplicaDirectory directory;
  private final NodeStore store;

  public ReplicaListing(String nodeId, RangeConsensus consensus, ReplicaDirectory directory, NodeStore store) {
    this.nodeId = nodeId;
    this.consensus = consensus;
    this.directory = directory;
    this.store = store;
  }

  /** This node's replicas now: open groups with their leadership, then ranges dormant here. */
  public ListRangesResponse list() {
    ListRangesResponse.Builder b = ListRangesResponse.newBuilder().setNodeId(nodeId);
    for (RangeReplica r : directory.replicas()) {
      Optional<RangeDescriptor> d = r.descriptor();
      if (d.isEmpty()) {
        continue;
      }
      ReplicaStatus.Builder s = ReplicaStatus.newBuilder().setRange(directory.toProto(d.get()));
      Optional<GroupStatus> group;
      try {
        group = consensus.status(r.rangeId());
      } catch (IllegalStateException e) {
        group = Optional.empty();
      }
      if (group.isEmpty()) {
        continue; // the group closed since the directory listed it, or is still starting
      }
      s.setLeader(group.get().leadership().leader())
          .setLeaderNodeId(group.get().leadership().leaderId())
          .setAppliedIndex(group.get().appliedIndex());
      b.addReplicas(s);
    }
    for (dev.rangekv.storage.RangeLocalState s : store.allRangeStates()) {
      if (directory.replica(s.rangeId()).isEmpty() && s.descriptor().replicas().contains(nodeId)
          && dev.rangekv.server.replica.DormancyRecord.dormantAt(store, s.rangeId()).isPresent()) {
        directory.replicaRecord(s.rangeId()); // learns the replicas' addresses (no group registered them)
        b.addReplicas(ReplicaStatus.newBuilder().setRange(directory.toProto(s.descriptor())).setDormant(true)
            .setAppliedIndex(s.appliedIndex()));
      }
    }
    return b.build();
  }
}
