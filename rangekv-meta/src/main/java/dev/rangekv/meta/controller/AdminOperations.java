package dev.rangekv.meta.controller;


import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.controller.OperatorPlanner;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MetaGroup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The admin calls: validated against the meta view first ({@link AdminRejectedException}), refused
 * when a range is busy ({@link RangeBusyException}), then run as operators under one hold on their
 * ranges (so no planned operator takes them between the call's operators). Pre-split lives in {@link
 * PreSplit}. Thread-safe.
 */
final class AdminOperations {
  private final Controller controller;
  private final MetaGroup meta;
  private final ControllerConfig config;
  private final StatsBook stats;
  private final LongSupplier clock;
  private final PreSplit presplit;

  AdminOperations(Controller controller, MetaGroup meta, ControllerConfig config, StatsBook stats, EventRecorder events,
      LongSupplier clock) {
    this.controller = controller;
    this.meta = meta;
    this.config = config;
    this.stats = stats;
    this.clock = clock;
    this.presplit = new PreSplit(meta, config, stats, this, events, clock);
  }

  // ------------------------------------------------------------------------------------------
  // Operators under a hold

  /** Splits the range {@code id} (as the meta view has it now) at {@code key} or the store's midpoint. */
  CompletableFuture<RangeDescriptor> splitOp(OperatorQueue.Hold hold, long id, Optional<Key> key,
      SplitCause cause, Explanation why) {
    return splitOp(hold, id, key, cause, false, why);
  }

  /** A split whose right half is born dormant when {@code childDormant} (see {@link OpStep.SplitAt}). */
  CompletableFuture<RangeDescriptor> splitOp(OperatorQueue.Hold hold, long id, Optional<Key> key,
      SplitCause cause, boolean childDormant, Explanation why) {
    RangeDescriptor d = descriptor(id);
    return run(hold, id, OperatorKind.ADMIN_SPLIT,
        List.of(new OpStep.SplitAt(key, d.end(), d.generation(), cause, childDormant)), why);
  }

  /** Moves one replica (from a dead source: add and remove; from a live one: add, leadership off, remove). */
  CompletableFuture<RangeDescriptor> moveOp(OperatorQueue.Hold hold, Move m) {
    RangeDescriptor d = descriptor(m.rangeId());
    return run(hold, m.rangeId(), OperatorKind.ADMIN_MOVE, OperatorPlanner.moveSteps(m, d, liveNodeIds()), m.why());
  }

  /** Adds a replica of range {@code id} on {@code nodeId} (a span snapshot, then a voter). */
  CompletableFuture<RangeDescriptor> addReplicaOp(OperatorQueue.Hold hold, long id, String nodeId, Explanation why) {
    return run(hold, id, OperatorKind.ADMIN_MOVE, List.of(new OpStep.AddReplica(nodeId)), why);
  }

  CompletableFuture<RangeDescriptor> transferOp(OperatorQueue.Hold hold, long id, String from, String to,
      Explanation why) {
    return run(hold, id, OperatorKind.ADMIN_MOVE, List.of(new OpStep.TransferLeader(from, to)), why);
  }

  private CompletableFuture<RangeDescriptor> run(OperatorQueue.Hold hold, long id, OperatorKind kind,
      List<OpStep> steps, Explanation why) {
    RangeDescriptor d = descriptor(id);
    Operator op = new Operator(id, d.generation(), kind, steps, why,
        controller.timeouts().deadline(steps, clock.getAsLong()));
    return controller.run(op, Optional.of(hold)).thenApply(seen -> meta.view().range(id).orElseThrow());
  }

  private Set<String> liveNodeIds() {
    long now = clock.getAsLong();
    Set<String> out = new HashSet<>();
    for (NodeInfo n : meta.view().nodes()) {
      if (now - n.lastHeartbeatMillis() <= config.deadNodeTimeoutMillis()) {
        out.add(n.nodeId());
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // Admin calls

  CompletableFuture<SplitHalves> split(long rangeId, Optional<Key> splitKey) {
    try {
      RangeDescriptor d = rangeForSplit(rangeId, splitKey);
      OperatorQueue.Hold hold = reserve(List.of(d.rangeId()), "admin split");
      Optional<Key> key = splitKey.filter(k -> !k.isEmpty());
      return released(hold, splitOp(hold, d.rangeId(), key, SplitCause.PRESPLIT, Explanation.of("admin split").build())
          .thenApply(left -> new SplitHalves(left, OperatorEvents.rightHalf(left.rangeId(), meta.view()).orElseThrow())));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private RangeDescriptor rangeForSplit(long rangeId, Optional<Key> splitKey) {
    splitKey = splitKey.filter(k -> !k.isEmpty());
    if (rangeId == 0 && splitKey.isEmpty()) {
      throw new AdminRejectedException("split_key", "give a range id, a split key, or both");
    }
    RangeDescriptor d = rangeId == 0 ? meta.view().lookup(splitKey.get()) : range(rangeId);
    if (splitKey.isPresent()) {
      Key k = splitKey.get();
      if (!d.contains(k) || d.start().equals(k)) {
        throw new AdminRejectedException("split_key", "split key " + k + " is not strictly inside " + d);
      }
    }
    return d;
  }

  CompletableFuture<RangeDescriptor> move(long rangeId, String from, String to) {
    try {
      RangeDescriptor d = range(rangeId);
      List<String> replicas = d.replicas();
      if (!replicas.contains(from)) {
        throw new AdminRejectedException("replica", "node " + from + " holds no replica of r" + rangeId
            + " (replicas " + replicas + ")");
      }
      node(to);
      if (replicas.contains(to)) {
        throw new AdminRejectedException("replica", "node " + to + " already holds a replica of r" + rangeId);
      }
      var rule = meta.view().placementRules().ruleFor(d);
      var target = meta.view().nodes().stream().filter(n -> n.nodeId().equals(to)).findFirst()
          .map(NodeInfo::stats);
      if (rule.isPresent() && target.isPresent() && !rule.get().allows(target.get())) {
        // the placement policy would only move it back
        throw new AdminRejectedException("placement.rule", "the placement rule " + rule.get() + " forbids node " + to
            + ": " + rule.get().refusal(target.get()));
      }
      Move m = Move.of(rangeId, from, to, Explanation.of("admin move").build());
      OperatorQueue.Hold hold = reserve(List.of(rangeId), "admin move");
      return released(hold, moveOp(hold, m));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  CompletableFuture<RangeDescriptor> merge(long leftRangeId) {
    try {
      RangeDescriptor left = range(leftRangeId);
      if (left.end().isInfinite()) {
        throw new AdminRejectedException("merge", "r" + leftRangeId + " is the last range: no right neighbour");
      }
      RangeDescriptor right = meta.view().lookup(left.end().key());
      TreeSet<String> l = new TreeSet<>(left.replicas());
      TreeSet<String> r = new TreeSet<>(right.replicas());
      if (l.size() != r.size()) {
        throw new AdminRejectedException("merge", "replica counts differ: r" + leftRangeId + " has " + l
            + ", r" + right.rangeId() + " has " + r + "; wait for repair");
      }
      long rightId = right.rangeId();
      OperatorQueue.Hold hold = reserve(List.of(leftRangeId, rightId), "admin merge");
      // Co-locate: move the right range's replicas missing on the left onto the left's other nodes.
      List<String> from = new ArrayList<>(r);
      from.removeAll(l);
      List<String> to = new ArrayList<>(l);
      to.removeAll(r);
      CompletableFuture<?> chain = CompletableFuture.completedFuture(null);
      for (int i = 0; i < from.size(); i++) {
        Move m = Move.of(rightId, from.get(i), to.get(i), Explanation.of("co-locate for admin merge")
            .with("leftRangeId", leftRangeId).with("rightRangeId", rightId).build());
        chain = chain.thenCompose(v -> moveOp(hold, m));
      }
      CompletableFuture<RangeDescriptor> merged = chain.thenCompose(v -> {
        RangeDescriptor rd = descriptor(rightId);
        return run(hold, leftRangeId, OperatorKind.ADMIN_MERGE,
            List.of(new OpStep.Merge(rightId, rd.generation(), rd.end())), Explanation.of("admin merge").build());
      });
      return released(hold, merged);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  CompletableFuture<List<RangeDescriptor>> presplit(List<Key> keys, int uniform, boolean scatter) {
    try {
      return presplit.run(keys, uniform, scatter);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  // ------------------------------------------------------------------------------------------

  RangeDescriptor range(long rangeId) {
    Optional<RangeDescriptor> d = meta.view().range(rangeId);
    if (d.isEmpty()) {
      throw new AdminRejectedException("range_id", "unknown range " + rangeId);
    }
    if (meta.view().provisional(rangeId)) {
      throw new AdminRejectedException("range_id", "range " + rangeId
          + " is provisional (awaiting its successor's report); retry later");
    }
    return d.get();
  }

  private RangeDescriptor descriptor(long rangeId) {
    return meta.view().range(rangeId)
        .orElseThrow(() -> new IllegalStateException("range " + rangeId + " is no longer in the map"));
  }

  void node(String nodeId) {
    if (meta.view().nodes().stream().noneMatch(n -> n.nodeId().equals(nodeId))) {
      throw new AdminRejectedException("node_id", "unknown node '" + nodeId + "'");
    }
  }

  OperatorQueue.Hold reserve(List<Long> ids, String what) {
    controller.leadIfLeader();
    Optional<OperatorQueue.Hold> hold = controller.queue().reserve(ids, what);
    if (hold.isEmpty()) {
      long busy = ids.stream().filter(id -> controller.queue().holderName(id).isPresent()).findFirst()
          .orElse(ids.get(0));
      throw new RangeBusyException(busy, controller.queue().holderName(busy).orElse("a step"));
    }
    return hold.get();
  }

  <T> CompletableFuture<T> released(OperatorQueue.Hold hold, CompletableFuture<T> f) {
    return f.whenComplete((v, e) -> hold.release());
  }
}
