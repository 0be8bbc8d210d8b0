package dev.rangekv.server.split;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RaftReplicaList;
import dev.rangekv.proto.replica.SplitCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.WriteBatchBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The apply step of a split (already validated against the parent's bounds and generation), written
 * into one synced batch: the parent shrinks to {@code [start, splitKey)} at generation + 1 with the
 * applied index; the child {@code [splitKey, end)} is recorded at generation + 1 with applied index 0,
 * its replicas, and a copy of the parent's dedupe records (a write retried after the split must not
 * apply twice in the child). A split asked to give a dormant child ({@code child_dormant}, a pre-split's)
 * has the child's dormancy mark recorded in the same batch (see {@link SplitOutcome}), so no replica opens
 * its group until a wake does. Idempotent on replay: an existing child record is never overwritten,
 * since the child may have split again since.
 */
public final class SplitApplier {
  /** Local-state field holding a range's replicas ({@link RaftReplicaList}). */
  public static final String REPLICAS_FIELD = "replicas";
  /** Local-state field listing the ids of ranges split off a range (8 bytes each). */
  public static final String CHILDREN_FIELD = "children";

  private SplitApplier() {}

  /**
   * The parent and child after a split, and the reply. {@code childBornDormant}: the child was recorded
   * by this apply and the split asked for it dormant; the caller adds its dormancy mark to the same batch
   * (the mark's format belongs to {@code replica.DormancyRecord}), so no replica ever sees the child
   * without it and none creates its group.
   */
  public record SplitOutcome(RangeDescriptor parent, RangeDescriptor child, List<RaftReplica> peers, CommandResult result,
      boolean childBornDormant) {
    public SplitOutcome {
      peers = List.copyOf(peers);
    }
  }

  public static SplitOutcome apply(
      NodeStore store, RangeDescriptor parent, SplitCommand split, long term, long index, WriteBatchBuilder batch) {
    Key at = ProtoValues.key(split.getSplitKey());
    long generation = parent.generation() + 1;
    RangeDescriptor left = parent.withSpan(parent.start(), RangeEnd.at(at), generation);
    List<String> nodes = new ArrayList<>();
    Map<String, String> addresses = new HashMap<>();
    for (RaftReplica r : split.getPeersList()) {
      nodes.add(r.getNodeId());
      addresses.put(r.getNodeId(), r.getClientAddress());
    }
    RangeDescriptor right = new RangeDescriptor(split.getChildRangeId(), at, parent.end(), nodes, generation);

    batch.putRangeState(new RangeLocalState(left, term, index));
    boolean recorded = store.rangeState(right.rangeId()).isEmpty();
    if (recorded) {
      batch.putRangeState(new RangeLocalState(right, 0, 0));
      batch.localPut(right.rangeId(), REPLICAS_FIELD,
          RaftReplicaList.newBuilder().addAllReplicas(split.getPeersList()).build().toByteArray());
      for (Map.Entry<String, byte[]> e : store.localScan(parent.rangeId(), "dedupe/")) {
        batch.localPut(right.rangeId(), e.getKey(), e.getValue());
      }
      byte[] children = store.localGet(parent.rangeId(), CHILDREN_FIELD).orElse(new byte[0]);
      batch.localPut(parent.rangeId(), CHILDREN_FIELD,
          ByteBuffer.allocate(children.length + 8).put(children).putLong(right.rangeId()).array());
    }
    batch.sync();
    SplitRangeResponse reply =
        SplitRangeResponse.newBuilder()
            .setLeft(ProtoValues.descriptor(left, addresses::get))
            .setRight(ProtoValues.descriptor(right, addresses::get))
            .build();
    return new SplitOutcome(left, right, split.getPeersList(), CommandResult.newBuilder().setSplit(reply).build(),
        recorded && split.getChildDormant());
  }

  /** The ids of ranges split off {@code rangeId} on this node, oldest first. */
  public static List<Long> children(NodeStore store, long rangeId) {
    byte[] bytes = store.localGet(rangeId, CHILDREN_FIELD).orElse(new byte[0]);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    List<Long> ids = new ArrayList<>(bytes.length / 8);
    while (buf.remaining() >= 8) {
      ids.add(buf.getLong());
    }
    return ids;
  }
}
