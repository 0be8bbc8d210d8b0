package dev.rangekv.server.replica;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.server.split.SplitApplier.SplitOutcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** What a range state machine needs from the node hosting it. Implementations are thread-safe. */
public interface ReplicaHost {
  /** A state machine finished {@code initialize}. */
  void register(RangeReplica replica);

  /** A state machine closed. */
  void unregister(RangeReplica replica);

  /**
   * Called on the parent's apply thread after a split's batch is durable: create the child's group
   * (asynchronously; never block the apply thread on it).
   */
  void splitApplied(SplitOutcome outcome);

  /**
   * The current descriptors to send with {@code RANGE_MOVED} for a request that reached {@code current}:
   * it and the ranges split off it, with node addresses.
   */
  List<RangeDescriptorProto> movedDescriptors(RangeDescriptor current);

  /**
   * Fetches {@code rangeId}'s span snapshot from the node {@code leaderNodeId} (asynchronously, never
   * on the caller's thread); fails when it cannot, so the engine asks again later.
   */
  default CompletableFuture<StagedSpan> fetchSpan(long rangeId, String leaderNodeId) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("span snapshots are not wired"));
  }

  /**
   * A range delete over {@code [lo, hi)} was applied on this node: its space comes back only when the
   * span is compacted, so the host schedules that (off the apply thread).
   */
  default void spanDeleted(Key lo, RangeEnd hi) {}

  /**
   * A dormancy entry was applied at {@code index} (durably): when {@code dormant}, the host closes this
   * replica's group soon, off the apply thread, keeping its storage.
   */
  default void dormancyApplied(long rangeId, boolean dormant, long index) {}

  /** A Raft entry was applied in {@code nanos} (for the node's apply latency meter). */
  default void applied(long nanos) {}

  /** This node's id; "" when the host does not know it (then no node is skipped as this one). */
  default String nodeId() {
    return "";
  }
}
