package dev.rangekv.meta.controller;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyText;
import dev.rangekv.core.policy.ControllerConfig;
import dev.rangekv.core.policy.Explanation;
import dev.rangekv.core.policy.Move;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.policy.SplitCause;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The steps the controller executes (shared by ticks and admin calls) and the admin calls themselves:
 * validated against the meta view first ({@link AdminRejectedException}), refused when a range is busy
 * ({@link RangeBusyException}), then run as steps under one lease. Pre-split lives in {@link PreSplit}.
 * Thread-safe.
 */
final class AdminOperations {
  private final MetaGroup meta;
  private final RangeActions actions;
  private final StatsBook stats;
  private final InFlight inFlight;
  private final StepRunner steps;
  private final PreSplit presplit;

  AdminOperations(MetaGroup meta, RangeActions actions, ControllerConfig config, StatsBook stats, InFlight inFlight,
      StepRunner steps, EventLog events, LongSupplier clock) {
    this.meta = meta;
    this.actions = actions;
    this.stats = stats;
    this.inFlight = inFlight;
    this.steps = steps;
    this.presplit = new PreSplit(meta, config, stats, this, events, clock);
  }

  // ------------------------------------------------------------------------------------------
  // Steps

  /**
   * One replica move: from a dead node, add the new replica then remove the dead one (two reported
   * steps; a dead node cannot take part in a leadership transfer); from a live node, one {@link
   * RangeActions#move}; without a source, an added replica.
   */
  CompletableFuture<RangeDescriptorProto> moveStep(InFlight.Lease lease, String kind, Move m, Set<String> live) {
    long id = m.rangeId();
    String to = m.toNode();
    if (m.fromNode().isEmpty()) {
      return steps.run(lease, kind, List.of(id), m.why(), () -> actions.addReplica(id, to),
          d -> StepRunner.Done.of(d, "r" + id + " replica added on " + to));
    }
    String from = m.fromNode().get();
    if (!live.contains(from)) {
      return steps.run(lease, kind, List.of(id), m.why(), () -> actions.addReplica(id, to),
              d -> StepRunner.Done.of(d, "r" + id + " replica re-created on " + to + " for dead " + from))
          .thenCompose(d -> steps.run(lease, kind, List.of(id), m.why(), () -> actions.removeReplica(id, from),
              r -> StepRunner.Done.of(r, "r" + id + " replica on dead " + from + " removed")));
    }
    return steps.run(lease, kind, List.of(id), m.why(), () -> actions.move(id, from, to),
        d -> StepRunner.Done.of(d, "r" + id + " moved " + from + " -> " + to));
  }

  /** Drops a dead or surplus replica without a replacement (repair). */
  CompletableFuture<RangeDescriptorProto> removeStep(InFlight.Lease lease, RepairPlan.Removal r) {
    long id = r.rangeId();
    return steps.run(lease, "repair", List.of(id), r.why(), () -> actions.removeReplica(id, r.nodeId()),
        d -> StepRunner.Done.of(d, "r" + id + " replica on " + r.nodeId() + " dropped"));
  }

  CompletableFuture<AdminSplitResponse> splitStep(InFlight.Lease lease, long id, Optional<ByteString> key,
      SplitCause cause, Explanation why) {
    String at = key.map(k -> KeyText.render(ProtoValues.key(k))).orElse("the store's midpoint");
    return steps.run(lease, "split", List.of(id), why, () -> actions.split(id, key),
        r -> new StepRunner.Done(List.of(r.getLeft(), r.getRight()), StepRunner.ids(r.getLeft(), r.getRight()),
            "r" + id + " split at " + (key.isPresent() ? at : KeyText.render(ProtoValues.key(r.getRight().getStart())) + " (midpoint)")
                + " -> r" + r.getLeft().getRangeId() + ", r" + r.getRight().getRangeId(),
            List.of(SplitHistory.causeFigure(cause))));
  }

  CompletableFuture<RangeDescriptorProto> mergeStep(InFlight.Lease lease, long left, long right, Explanation why) {
    return steps.run(lease, "merge", List.of(left, right), why, () -> actions.merge(left, right),
        d -> new StepRunner.Done(List.of(d), List.of(left, right), "r" + left + " + r" + right + " -> r"
            + d.getRangeId(), List.of()));
  }

  CompletableFuture<Boolean> transferStep(InFlight.Lease lease, long id, String from, String to, Explanation why) {
    return steps.run(lease, "leader-transfer", List.of(id), why, () -> {
      actions.transferLeader(id, to);
      return Boolean.TRUE;
    }, ok -> {
      stats.leaderMoved(id, to);
      return new StepRunner.Done(List.of(), List.of(id), "r" + id + " leader " + from + " -> " + to, List.of());
    });
  }

  // ------------------------------------------------------------------------------------------
  // Admin calls

  CompletableFuture<AdminSplitResponse> split(long rangeId, Optional<ByteString> splitKey) {
    try {
      RangeDescriptorProto d = rangeForSplit(rangeId, splitKey);
      InFlight.Lease lease = acquire(List.of(d.getRangeId()), "admin split");
      return released(lease, splitStep(lease, d.getRangeId(), splitKey, SplitCause.PRESPLIT,
          Explanation.of("admin split").build()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private RangeDescriptorProto rangeForSplit(long rangeId, Optional<ByteString> splitKey) {
    splitKey = splitKey.filter(k -> !k.isEmpty());
    if (rangeId == 0 && splitKey.isEmpty()) {
      throw new AdminRejectedException("split_key", "give a range id, a split key, or both");
    }
    RangeDescriptorProto d = rangeId == 0 ? meta.view().lookup(splitKey.get()) : range(rangeId);
    if (splitKey.isPresent()) {
      RangeDescriptor r = ProtoValues.descriptor(d);
      Key k = ProtoValues.key(splitKey.get());
      if (!r.contains(k) || r.start().equals(k)) {
        throw new AdminRejectedException("split_key", "split key " + k + " is not strictly inside " + r);
      }
    }
    return d;
  }

  CompletableFuture<RangeDescriptorProto> move(long rangeId, String from, String to) {
    try {
      RangeDescriptorProto d = range(rangeId);
      List<String> replicas = ProtoValues.descriptor(d).replicas();
      if (!replicas.contains(from)) {
        throw new AdminRejectedException("replica", "node " + from + " holds no replica of r" + rangeId
            + " (replicas " + replicas + ")");
      }
      node(to);
      if (replicas.contains(to)) {
        throw new AdminRejectedException("replica", "node " + to + " already holds a replica of r" + rangeId);
      }
      var rule = meta.view().placementRules().ruleFor(ProtoValues.descriptor(d));
      var target = meta.view().nodes().stream().filter(n -> n.getNodeId().equals(to)).findFirst()
          .map(SnapshotBuilder::node);
      if (rule.isPresent() && target.isPresent() && !rule.get().allows(target.get())) {
        // the placement policy would only move it back
        throw new AdminRejectedException("placement.rule", "the placement rule " + rule.get() + " forbids node " + to
            + ": " + rule.get().refusal(target.get()));
      }
      Move m = Move.of(rangeId, from, to, Explanation.of("admin move").build());
      InFlight.Lease lease = acquire(List.of(rangeId), "admin move");
      lease.moving(Optional.of(m));
      return released(lease, steps.run(lease, "move", List.of(rangeId), m.why(), () -> actions.move(rangeId, from, to),
          r -> StepRunner.Done.of(r, "r" + rangeId + " moved " + from + " -> " + to + " (admin)")));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  CompletableFuture<RangeDescriptorProto> merge(long leftRangeId) {
    try {
      RangeDescriptorProto left = range(leftRangeId);
      if (left.getEndInfinite()) {
        throw new AdminRejectedException("merge", "r" + leftRangeId + " is the last range: no right neighbour");
      }
      RangeDescriptorProto right = meta.view().lookup(left.getEnd());
      TreeSet<String> l = new TreeSet<>(ProtoValues.descriptor(left).replicas());
      TreeSet<String> r = new TreeSet<>(ProtoValues.descriptor(right).replicas());
      if (l.size() != r.size()) {
        throw new AdminRejectedException("merge", "replica counts differ: r" + leftRangeId + " has " + l
            + ", r" + right.getRangeId() + " has " + r + "; wait for repair");
      }
      long rightId = right.getRangeId();
      Explanation why = Explanation.of("admin merge").build();
      InFlight.Lease lease = acquire(List.of(leftRangeId, rightId), "admin merge");
      // Co-locate: move the right range's replicas missing on the left onto the left's other nodes.
      List<String> from = new ArrayList<>(r);
      from.removeAll(l);
      List<String> to = new ArrayList<>(l);
      to.removeAll(r);
      CompletableFuture<?> chain = CompletableFuture.completedFuture(null);
      for (int i = 0; i < from.size(); i++) {
        Move m = Move.of(rightId, from.get(i), to.get(i), Explanation.of("co-locate for admin merge")
            .with("leftRangeId", leftRangeId).with("rightRangeId", rightId).build());
        chain = chain.thenCompose(v -> {
          lease.moving(Optional.of(m));
          return steps.run(lease, "move", List.of(rightId), m.why(), () -> actions.move(rightId, m.fromNode().get(),
              m.toNode()), d -> StepRunner.Done.of(d, "r" + rightId + " moved " + m.fromNode().get() + " -> "
              + m.toNode() + " to co-locate with r" + leftRangeId));
        });
      }
      CompletableFuture<RangeDescriptorProto> merged = chain.thenCompose(v -> {
        lease.moving(Optional.empty());
        return mergeStep(lease, leftRangeId, rightId, why);
      });
      return released(lease, merged);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  CompletableFuture<List<RangeDescriptorProto>> presplit(List<ByteString> keys, int uniform, boolean scatter) {
    try {
      return presplit.run(keys, uniform, scatter);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  // ------------------------------------------------------------------------------------------

  RangeDescriptorProto range(long rangeId) {
    Optional<RangeDescriptorProto> d = meta.view().range(rangeId);
    if (d.isEmpty()) {
      throw new AdminRejectedException("range_id", "unknown range " + rangeId);
    }
    if (meta.view().provisional(rangeId)) {
      throw new AdminRejectedException("range_id", "range " + rangeId
          + " is provisional (awaiting its successor's report); retry later");
    }
    return d.get();
  }

  void node(String nodeId) {
    if (meta.view().nodes().stream().noneMatch(n -> n.getNodeId().equals(nodeId))) {
      throw new AdminRejectedException("node_id", "unknown node '" + nodeId + "'");
    }
  }

  InFlight.Lease acquire(List<Long> ids, String what) {
    Optional<InFlight.Lease> lease = inFlight.acquire(ids, what);
    if (lease.isEmpty()) {
      long busy = ids.stream().filter(inFlight::busy).findFirst().orElse(ids.get(0));
      throw new RangeBusyException(busy, inFlight.holder(busy).orElse("a step"));
    }
    return lease.get();
  }

  <T> CompletableFuture<T> released(InFlight.Lease lease, CompletableFuture<T> f) {
    return f.whenComplete((v, e) -> inFlight.release(lease));
  }
}
