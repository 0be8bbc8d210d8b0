package dev.rangekv.server.replica;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.FreezeCommand;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RaftReplicaList;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.split.SplitApplier;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.WriteBatchBuilder;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The apply step of the descriptor changes of moves and merges, each into one synced batch with the
 * applied index (already validated against bounds and generation):
 * <ul>
 *   <li>change replicas: the replica set after a committed membership change, generation + 1;
 *   <li>freeze / unfreeze: the right range of a merge refuses everything but the unfreeze (and the same
 *       freeze again: a retry);
 *   <li>merge: the left range takes over its frozen right neighbour's span, generation = max + 1, and
 *       the union of both ranges' dedupe records.
 * </ul>
 * Deterministic given this range's log: a merge reads the right range's dedupe records from the local
 * store, which is the same on every replica because the merge coordinator proposes it only after every
 * replica applied the freeze, and drops the right range only after every replica applied the merge.
 */
public final class DescriptorChangeApplier {
  /** Local-state field marking a range frozen for a merge: the left range's id (8 bytes). */
  public static final String FROZEN_FIELD = "frozen";

  private DescriptorChangeApplier() {}

  /** What an applied change did. {@code frozenFor} is the merge target while frozen, else 0. */
  public record Outcome(String kind, RangeDescriptor next, long frozenFor, CommandResult result) {}

  static boolean handles(RangeCommand cmd) {
    return cmd.hasChangeReplicas() || cmd.hasFreeze() || cmd.hasMerge();
  }

  static boolean isUnfreeze(RangeCommand cmd) {
    return cmd != null && cmd.hasFreeze() && !cmd.getFreeze().getFrozen();
  }

  /**
   * Whether a range frozen for {@code frozenFor} takes {@code cmd}: the unfreeze, and the same freeze
   * again. A merge retries a freeze whose outcome it could not learn (its reply lost, its leader gone);
   * refusing the repeat would end the merge with the range frozen and no one to unfreeze it.
   */
  static boolean takenWhileFrozen(RangeCommand cmd, long frozenFor) {
    return isUnfreeze(cmd)
        || cmd != null && cmd.hasFreeze() && cmd.getFreeze().getFrozen() && cmd.getFreeze().getMergeInto() == frozenFor;
  }

  /** The range {@code rangeId} is frozen for, from the store; 0 when not frozen. */
  static long frozenFor(NodeStore store, long rangeId) {
    return store.localGet(rangeId, FROZEN_FIELD).map(b -> ByteBuffer.wrap(b).getLong()).orElse(0L);
  }

  static Outcome apply(NodeStore store, RangeDescriptor d, RangeCommand cmd, long term, long index,
      WriteBatchBuilder batch) {
    Outcome outcome;
    if (cmd.hasChangeReplicas()) {
      List<RaftReplica> replicas = cmd.getChangeReplicas().getReplicasList();
      RangeDescriptor next = d.withReplicas(replicas.stream().map(RaftReplica::getNodeId).toList(), d.generation() + 1);
      batch.putRangeState(new RangeLocalState(next, term, index));
      batch.localPut(d.rangeId(), SplitApplier.REPLICAS_FIELD,
          RaftReplicaList.newBuilder().addAllReplicas(replicas).build().toByteArray());
      outcome = new Outcome("change-replicas", next, frozenFor(store, d.rangeId()), CommandResult.getDefaultInstance());
    } else if (cmd.hasFreeze()) {
      FreezeCommand f = cmd.getFreeze();
      if (f.getFrozen()) {
        batch.localPut(d.rangeId(), FROZEN_FIELD, ByteBuffer.allocate(8).putLong(f.getMergeInto()).array());
      } else {
        batch.localDelete(d.rangeId(), FROZEN_FIELD);
      }
      batch.setApplied(d.rangeId(), term, index);
      outcome = new Outcome(f.getFrozen() ? "freeze" : "unfreeze", d, f.getFrozen() ? f.getMergeInto() : 0,
          CommandResult.getDefaultInstance());
    } else {
      RangeDescriptor right = ProtoValues.descriptor(cmd.getMerge().getRight());
      RangeDescriptor next = d.withSpan(d.start(), right.end(), Math.max(d.generation(), right.generation()) + 1);
      batch.putRangeState(new RangeLocalState(next, term, index));
      mergeDedupe(store, d.rangeId(), right.rangeId(), batch);
      outcome = new Outcome("merge", next, 0, CommandResult.getDefaultInstance());
    }
    batch.sync();
    return new Outcome(outcome.kind(), outcome.next(), outcome.frozenFor(),
        outcome.result().toBuilder().setAppliedIndex(index).build());
  }

  /**
   * A write acknowledged by the right range and retried against the merged range applies once: the
   * left range takes every record of the right one it lacks, and for each client the higher floor.
   */
  static void mergeDedupe(NodeStore store, long left, long right, WriteBatchBuilder batch) {
    for (Map.Entry<String, byte[]> e : store.localScan(right, DedupeTable.PREFIX)) {
      Optional<byte[]> ours = store.localGet(left, e.getKey());
      if (DedupeTable.isFloorField(e.getKey())) {
        batch.localPut(left, e.getKey(), ours.map(o -> DedupeTable.maxFloor(o, e.getValue())).orElse(e.getValue()));
      } else if (ours.isEmpty()) {
        batch.localPut(left, e.getKey(), e.getValue());
      }
    }
  }

}
