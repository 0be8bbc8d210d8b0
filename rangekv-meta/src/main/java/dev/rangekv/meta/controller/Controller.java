package dev.rangekv.meta.controller;

import com.google.protobuf.ByteString;
import dev.rangekv.core.controller.ControllerPlanner;
import dev.rangekv.core.controller.ControllerState;
import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.merge.MergeDecision;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.policy.ControllerConfig;
import dev.rangekv.core.policy.Explanation;
import dev.rangekv.core.policy.LeaderTransfer;
import dev.rangekv.core.policy.Move;
import dev.rangekv.core.rebalance.RepairPlan;
import dev.rangekv.core.policy.NodeStats;
import dev.rangekv.core.policy.SplitCause;
import dev.rangekv.core.policy.SplitEvent;
import dev.rangekv.core.split.SplitDecision;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller on the meta leader. {@link #tick} builds a snapshot from the meta view and the
 * leaders' stats, calls {@link ControllerPlanner#tick}, keeps the planner's state, records "why" for
 * every range, logs declined decisions and alerts (de-duplicated), and starts the plan's steps on the
 * step executor: repairs, splits, merges (or their co-location moves), rebalancing moves and leadership
 * transfers, at most one step per range at a time. Each finished step is reported to the meta range
 * and logged as an event; each failure becomes a {@code "failed"} event and the range is left alone for
 * {@link #FAILURE_BACKOFF_TICKS} ticks.
 *
 * <p>{@link #tick} owns no thread ({@link ControllerLoop} calls it); calls to it are serialised. Admin
 * operations ({@link #split}, {@link #merge}, {@link #move}, {@link #presplit}) may be called from any
 * thread and complete when done. Ticks are skipped while this node is not the meta leader; on gaining
 * the leadership the planner state starts over.
 */
public final class Controller {
  private static final Logger log = LoggerFactory.getLogger(Controller.class);
  /** Ticks a range is left alone after one of its steps failed, so a failing node is not hammered. */
  static final int FAILURE_BACKOFF_TICKS = 3;

  private final MetaGroup meta;
  private final ControllerConfig config;
  private final StatsBook stats = new StatsBook();
  private final WhyBook why = new WhyBook();
  private final InFlight inFlight = new InFlight();
  private final EventLog events;
  private final StepRunner steps;
  private final RangeActions actions;
  private final AdminOperations admin;
  private final SplitHistory history = new SplitHistory();
  private final Set<String> knownDead = new HashSet<>();
  private final Map<Long, Long> backoffUntil = new ConcurrentHashMap<>();
  private volatile Map<Long, String> placementViolations = Map.of();
  private final LongSupplier clock;
  private ControllerState state = ControllerState.INITIAL;
  private long tickNow;
  private boolean wasLeader;

  /**
   * @param meta this node's meta replica
   * @param actions executes steps on ranges (blocking calls)
   * @param config the policies' thresholds
   * @param stepExecutor runs the blocking steps (a few threads suffice; moves are budgeted)
   * @param clock the meta leader's wall clock, for events stamped outside a tick
   */
  public Controller(MetaGroup meta, RangeActions actions, ControllerConfig config, Executor stepExecutor,
      LongSupplier clock) {
    this.meta = meta;
    this.config = config;
    this.clock = clock;
    this.events = new EventLog(meta, clock);
    this.actions = actions;
    this.steps = new StepRunner(meta, events, stepExecutor, clock);
    this.admin = new AdminOperations(meta, actions, config, stats, inFlight, steps, events, clock);
  }

  /** Where heartbeats go (shared with {@link MetaServiceImpl}). */
  public StatsBook stats() {
    return stats;
  }

  /** The latest evaluation of each policy per range. */
  public WhyBook why() {
    return why;
  }

  public ControllerConfig config() {
    return config;
  }

  /**
   * The placement-rule violations of {@code rangeId} at the last tick, {@code "; "}-joined; empty when
   * it conforms or no rule governs it.
   */
  public String placementViolations(long rangeId) {
    return placementViolations.getOrDefault(rangeId, "");
  }

  /** Replica moves in flight now (tick and admin). */
  public List<Move> movesInFlight() {
    return inFlight.moves();
  }

  /**
   * One controller tick at {@code nowMillis}: plans and starts this tick's steps (they finish on the
   * step executor). Returns the plan, or empty when this node is not the meta leader.
   */
  public synchronized Optional<TickPlan> tick(long nowMillis) {
    if (!meta.isLeader()) {
      wasLeader = false;
      return Optional.empty();
    }
    if (!wasLeader) {
      state = ControllerState.INITIAL;
      history.reset();
      events.clear();
      knownDead.clear();
      why.clear();
      // Stats from a former term may be long stale; the next heartbeats refill what is dropped.
      stats.forgetOlderThan(nowMillis - config.deadNodeTimeoutMillis());
      wasLeader = true;
    }
    tickNow = nowMillis;
    backoffUntil.values().removeIf(until -> until <= nowMillis);
    MetaView view = meta.view();
    List<SplitEvent> splits = history.refresh(view, nowMillis, config.splitCooldownMillis());
    SnapshotBuilder.Built built = SnapshotBuilder.build(view, stats, inFlight.moves(), splits);
    TickPlan plan = ControllerPlanner.tick(built.snapshot(), state, config, nowMillis);
    state = plan.next();
    stats.retainRanges(view.ranges().stream().map(RangeDescriptorProto::getRangeId).collect(Collectors.toSet()));
    stats.retainNodes(view.nodes().stream().map(NodeRecord::getNodeId).toList());
    why.record(plan, built, config, nowMillis);
    Map<Long, String> violations = new java.util.HashMap<>();
    for (PlacementPlan.Report r : plan.placement().reports()) {
      if (!r.conforms()) {
        violations.put(r.rangeId(), r.violations().stream().map(Object::toString).collect(Collectors.joining("; ")));
      }
    }
    placementViolations = Map.copyOf(violations);
    logRepetitive(plan, built, nowMillis);
    execute(plan, built, nowMillis);
    return Optional.of(plan);
  }

  private void logRepetitive(TickPlan plan, SnapshotBuilder.Built built, long now) {
    events.prune(now);
    List<EventProto> out = new ArrayList<>();
    for (EventProto e : PlanEvents.of(plan, built.unmeasured(), now)) {
      if (events.shouldLog(e, now)) {
        out.add(e);
      }
    }
    for (NodeStats n : built.snapshot().nodes()) {
      boolean live = n.isLive(now, config.deadNodeTimeoutMillis());
      if (!live && knownDead.add(n.nodeId())) {
        out.add(EventLog.event("node-dead", List.of(), Explanation.of("no heartbeat within node.dead-timeout")
            .with("silentMillis", now - n.lastHeartbeatMillis())
            .with("deadTimeoutMillis", config.deadNodeTimeoutMillis()).build(), "node " + n.nodeId() + " is dead",
            now));
      } else if (live) {
        knownDead.remove(n.nodeId());
      }
    }
    if (!out.isEmpty()) {
      events.append(out).whenComplete((v, e) -> {
        if (e != null) {
          log.warn("could not log controller events count={} error={}", out.size(), StepRunner.unwrap(e).getMessage());
        }
      });
    }
  }

  private void execute(TickPlan plan, SnapshotBuilder.Built built, long now) {
    Set<String> live = new HashSet<>(built.snapshot().liveNodeIds(now, config.deadNodeTimeoutMillis()));
    Set<Long> unmeasured = built.unmeasured();
    Set<Long> touched = new HashSet<>();
    for (Move m : plan.repair().moves()) {
      startMove(m, "repair", live, touched);
    }
    for (RepairPlan.Removal r : plan.repair().removals()) {
      if (touched.add(r.rangeId())) {
        lease(List.of(r.rangeId()), "repair").ifPresent(lease -> release(lease, admin.removeStep(lease, r)));
      }
    }
    for (Move m : plan.placement().moves()) {
      startMove(m, "move", live, touched); // needs no stats: the rule, not the load, decides
    }
    for (LeaderTransfer t : plan.placement().leaderTransfers()) {
      if (touched.add(t.rangeId())) {
        startTransfer(t);
      }
    }
    for (SplitDecision d : plan.splits()) {
      boolean ruleBoundary = d instanceof SplitDecision.Split x && x.cause() == SplitCause.PLACEMENT;
      if ((d instanceof SplitDecision.Split || d instanceof SplitDecision.NeedsMidpoint)
          && (ruleBoundary || !unmeasured.contains(d.rangeId())) && touched.add(d.rangeId())) {
        startSplit(d);
      }
    }
    for (MergeDecision d : plan.merges()) {
      if (unmeasured.contains(d.leftRangeId()) || unmeasured.contains(d.rightRangeId())) {
        continue;
      }
      if (d instanceof MergeDecision.Merge m && !touched.contains(m.rightRangeId()) && touched.add(m.leftRangeId())) {
        touched.add(m.rightRangeId());
        startMerge(m);
      } else if (d instanceof MergeDecision.CoLocateFirst c && !c.moves().isEmpty()) {
        startMove(c.moves().get(0), "move", live, touched);
      }
    }
    for (Move m : plan.rebalance().moves()) {
      if (!unmeasured.contains(m.rangeId())) {
        startMove(m, "move", live, touched);
      }
    }
    for (LeaderTransfer t : plan.rebalance().leaderTransfers()) {
      if (!unmeasured.contains(t.rangeId()) && touched.add(t.rangeId())) {
        startTransfer(t);
      }
    }
    placeMetaVoters(live);
  }

  /** Grows the meta range onto joined nodes, or replaces a voter on a dead node (one change at a time). */
  private void placeMetaVoters(Set<String> live) {
    List<NodeRecord> nodes = meta.view().nodes();
    List<NodeRecord> liveNodes = nodes.stream().filter(n -> live.contains(n.getNodeId())).toList();
    MetaVoterStep.due(meta, liveNodes).ifPresent(change ->
        lease(List.of(MetaVoterStep.META_LEASE_ID), "meta-voters").ifPresent(lease ->
            release(lease, MetaVoterStep.run(steps, lease, meta, actions, nodes, change))));
  }

  private void startMove(Move m, String kind, Set<String> live, Set<Long> touched) {
    if (!touched.add(m.rangeId())) {
      return;
    }
    lease(List.of(m.rangeId()), kind).ifPresent(lease -> {
      lease.moving(Optional.of(m));
      release(lease, admin.moveStep(lease, kind, m, live));
    });
  }

  private void startSplit(SplitDecision d) {
    long id = d.rangeId();
    Optional<ByteString> key = d instanceof SplitDecision.Split s ? Optional.of(ProtoValues.bytes(s.splitKey()))
        : Optional.empty();
    SplitCause cause = d instanceof SplitDecision.Split s ? s.cause() : SplitCause.SIZE;
    lease(List.of(id), "split").ifPresent(lease -> release(lease, admin.splitStep(lease, id, key, cause, d.why())));
  }

  private void startMerge(MergeDecision.Merge m) {
    lease(List.of(m.leftRangeId(), m.rightRangeId()), "merge").ifPresent(lease ->
        release(lease, admin.mergeStep(lease, m.leftRangeId(), m.rightRangeId(), m.why())));
  }

  private void startTransfer(LeaderTransfer t) {
    lease(List.of(t.rangeId()), "leader-transfer").ifPresent(lease ->
        release(lease, admin.transferStep(lease, t.rangeId(), t.fromNode(), t.toNode(), t.why())));
  }

  /** A lease on {@code ids} unless one is held already or backing off after a failed step. */
  private Optional<InFlight.Lease> lease(List<Long> ids, String what) {
    for (long id : ids) {
      if (backoffUntil.getOrDefault(id, Long.MIN_VALUE) > tickNow) {
        return Optional.empty();
      }
    }
    return inFlight.acquire(ids, what);
  }

  /** Frees the lease when the step ends; its failure was already logged and recorded as an event. */
  private void release(InFlight.Lease lease, CompletableFuture<?> step) {
    step.whenComplete((v, e) -> {
      if (e != null) {
        long until = clock.getAsLong() + FAILURE_BACKOFF_TICKS * config.tickMillis();
        lease.ids().forEach(id -> backoffUntil.put(id, until));
      }
      inFlight.release(lease);
    });
  }

  // ------------------------------------------------------------------------------------------
  // Admin operations (MetaService Split/Merge/Move/PreSplit); each logged as events and reported.

  /** Splits {@code rangeId} (or the range holding {@code splitKey} when 0) at the key or the store's midpoint. */
  public CompletableFuture<AdminSplitResponse> split(long rangeId, Optional<ByteString> splitKey) {
    return admin.split(rangeId, splitKey);
  }

  /** Merges {@code leftRangeId} with its right neighbour, co-locating the right one first when needed. */
  public CompletableFuture<RangeDescriptorProto> merge(long leftRangeId) {
    return admin.merge(leftRangeId);
  }

  /** Moves the replica of {@code rangeId} on {@code fromNodeId} to {@code toNodeId}. */
  public CompletableFuture<RangeDescriptorProto> move(long rangeId, String fromNodeId, String toNodeId) {
    return admin.move(rangeId, fromNodeId, toNodeId);
  }

  /**
   * Splits at {@code splitKeys}, or at {@code uniform - 1} points splitting the 8-byte prefix space into
   * {@code uniform} ranges, then (when {@code scatter}) moves the resulting ranges' replicas so they
   * spread evenly over the live nodes. Completes with the resulting ranges.
   */
  public CompletableFuture<List<RangeDescriptorProto>> presplit(List<ByteString> splitKeys, int uniform,
      boolean scatter) {
    return admin.presplit(splitKeys, uniform, scatter);
  }
}
