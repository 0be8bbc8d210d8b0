package dev.rangekv.meta.controller;


import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.SplitEvent;
import dev.rangekv.core.controller.ControllerPlanner;
import dev.rangekv.core.controller.ControllerState;
import dev.rangekv.core.controller.OperatorInputs;
import dev.rangekv.core.controller.TickPlan;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.placement.PlacementPlan;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.meta.state.ReportedRange;
import io.grpc.Channel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller on the meta leader. {@link #tick} advances the running operators against the latest
 * reports, builds a snapshot from the meta view and the leaders' stats, calls {@link
 * ControllerPlanner#tick} (which returns the tick's operators, in priority order, leaving the ranges of
 * running operators alone), admits them to the {@link OperatorQueue} and sends each due step as one
 * non-blocking node-admin call ({@link StepCalls}). A call's answer is reported to the meta range and
 * advances its operator at once; a step that does not finish in time is retried or its operator is
 * cancelled with a {@code "failed"} event saying why. Also records "why" for every range, logs declined
 * decisions and alerts (de-duplicated), and grows the meta range onto joined nodes.
 *
 * <p>No thread waits on a step: {@link #tick} owns no thread ({@link ControllerLoop} calls it) and
 * returns once the calls are sent; answers arrive on gRPC threads. One lock serialises ticks, answers
 * and admin calls (each holds it briefly). Admin operations ({@link #split}, {@link #merge}, {@link
 * #move}, {@link #presplit}) run as operators too and complete when they finish. Ticks are skipped
 * while this node is not the meta leader; on gaining the leadership the planner state and the queue
 * start over (the reports tell the new leader where every range stands).
 */
public final class Controller {
  private static final Logger log = LoggerFactory.getLogger(Controller.class);
  /** Ticks a range is left alone after one of its operators was cancelled, so a failing node is not hammered. */
  static final int FAILURE_BACKOFF_TICKS = 3;

  private final MetaGroup meta;
  private final ControllerConfig config;
  private final StepTimeouts timeouts;
  private final StatsBook stats = new StatsBook();
  private final WhyBook why = new WhyBook();
  private final EventRecorder events;
  private final OperatorQueue queue;
  private final StepCalls calls;
  private final AdminOperations admin;
  private final MetaVoterStep metaVoters;
  private final SplitHistory history = new SplitHistory();
  private final Set<String> knownDead = new HashSet<>();
  private final Map<Long, CompletableFuture<OperatorQueue.Observed>> waiting = new HashMap<>();
  private final Map<Long, OperatorQueue.Hold> holds = new HashMap<>();
  /** Where to send steps of ranges whose leader no heartbeat reported yet (a split's new half). */
  private final Map<Long, String> leaderHints = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile Map<Long, String> placementViolations = Map.of();
  private final LongSupplier clock;
  private ControllerState state = ControllerState.INITIAL;
  private boolean wasLeader;

  /**
   * @param meta this node's meta replica
   * @param nodeChannels a channel to a node's client address, for node-admin and replica calls
   * @param config the policies' thresholds
   * @param timeouts how long each step's attempt may take, and how many attempts it gets
   * @param moveBytesPerSecond span snapshot bandwidth of a replica move (0 = unlimited)
   * @param clock the meta leader's wall clock, for events and answers that arrive between ticks
   */
  public Controller(MetaGroup meta, Function<String, Channel> nodeChannels, ControllerConfig config,
      StepTimeouts timeouts, long moveBytesPerSecond, LongSupplier clock) {
    this.meta = meta;
    this.config = config;
    this.timeouts = timeouts;
    this.clock = clock;
    this.events = new EventRecorder(meta, clock);
    this.queue = new OperatorQueue(timeouts, FAILURE_BACKOFF_TICKS * config.tickMillis());
    this.calls = new StepCalls(nodeChannels, timeouts, moveBytesPerSecond, () -> meta.allocateRangeIds(1));
    this.admin = new AdminOperations(this, meta, config, stats, events, clock);
    this.metaVoters = new MetaVoterStep(meta, nodeChannels, events, clock);
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

  StepTimeouts timeouts() {
    return timeouts;
  }

  OperatorQueue queue() {
    return queue;
  }

  /**
   * The placement-rule violations of {@code rangeId} at the last tick, {@code "; "}-joined; empty when
   * it conforms or no rule governs it.
   */
  public String placementViolations(long rangeId) {
    return placementViolations.getOrDefault(rangeId, "");
  }

  /** Replica moves in flight now (planned and admin). */
  public List<Move> movesInFlight() {
    return queue.moves();
  }

  /** The operators running now, in admission order. */
  public List<Operator> operators() {
    return queue.running();
  }

  /**
   * One controller tick at {@code nowMillis}: advances the running operators, plans, and sends this
   * tick's steps (their answers arrive later). Returns the plan, or empty when this node is not the
   * meta leader.
   */
  public synchronized Optional<TickPlan> tick(long nowMillis) {
    if (!meta.isLeader()) {
      if (wasLeader) {
        forget("this node lost the meta leadership");
      }
      wasLeader = false;
      return Optional.empty();
    }
    lead(nowMillis);
    advance(nowMillis);
    MetaView view = meta.view();
    List<SplitEvent> splits = history.refresh(view, nowMillis, config.splitCooldownMillis());
    SnapshotBuilder.Built built = SnapshotBuilder.build(view, stats, queue.moves(), splits);
    List<OperatorInputs.Running> running = queue.runningSteps().stream()
        .map(r -> new OperatorInputs.Running(r.getKey(), r.getValue())).toList();
    TickPlan plan = ControllerPlanner.tick(built.snapshot(), state, config, nowMillis,
        new OperatorInputs(queue.locked(nowMillis), built.unmeasured(), timeouts, running));
    preempt(plan, nowMillis);
    state = plan.next();
    stats.retainRanges(view.ranges().stream().map(RangeDescriptor::rangeId).collect(Collectors.toSet()));
    stats.retainNodes(view.nodes().stream().map(NodeInfo::nodeId).toList());
    why.record(plan, built, config, nowMillis);
    Map<Long, String> violations = new HashMap<>();
    for (PlacementPlan.Report r : plan.placement().reports()) {
      if (!r.conforms()) {
        violations.put(r.rangeId(), r.violations().stream().map(Object::toString).collect(Collectors.joining("; ")));
      }
    }
    placementViolations = Map.copyOf(violations);
    logRepetitive(plan, built, nowMillis);
    for (Operator op : plan.operators()) {
      queue.admit(op, nowMillis); // the planner left locked ranges alone: this admits them all
    }
    advance(nowMillis);
    Set<String> live = new HashSet<>(built.snapshot().liveNodeIds(nowMillis, config.deadNodeTimeoutMillis()));
    metaVoters.placeIfDue(view.nodes().stream().filter(n -> live.contains(n.nodeId())).toList(), view.nodes());
    return Optional.of(plan);
  }

  /**
   * Cancels, without backing off, the running operators the plan preempts (their steps aim at a dead
   * node), before the plan's operators are admitted: those may take the freed ranges (a repair). Called
   * with the lock held.
   */
  private void preempt(TickPlan plan, long nowMillis) {
    boolean any = false;
    for (TickPlan.Preemption p : plan.preemptions()) {
      any |= queue.preempt(p.rangeId(), p.reason());
    }
    if (any) {
      advance(nowMillis);
    }
  }

  /** On gaining the meta leadership: the planner state and the queue start over. Called with the lock held. */
  private void lead(long nowMillis) {
    if (wasLeader) {
      return;
    }
    state = ControllerState.INITIAL;
    history.reset();
    events.clear();
    knownDead.clear();
    why.clear();
    forget("this node became the meta leader again");
    // Stats from a former term may be long stale; the next heartbeats refill what is dropped.
    stats.forgetOlderThan(nowMillis - config.deadNodeTimeoutMillis());
    wasLeader = true;
  }

  /** Before an admin call holds ranges: takes up the leadership first, so taking it up drops no hold. */
  synchronized void leadIfLeader() {
    if (meta.isLeader()) {
      lead(clock.getAsLong());
    }
  }

  private void forget(String reason) {
    for (OperatorQueue.Cancelled c : queue.clear(reason)) {
      Optional.ofNullable(waiting.remove(c.id())).ifPresent(f -> f.completeExceptionally(
          new OperatorCancelledException(c.op(), reason)));
    }
    holds.clear();
  }

  /** One pass of the queue at {@code now}, and what it asks for. Called with the lock held. */
  private void advance(long now) {
    MetaView view = meta.view();
    List<OperatorQueue.Action> actions = queue.advance(now, id -> observed(view, id));
    List<Event> out = new ArrayList<>();
    for (OperatorQueue.Action a : actions) {
      if (a instanceof OperatorQueue.Send s) {
        send(s, view);
      } else if (a instanceof OperatorQueue.Finished f) {
        OperatorQueue.Hold hold = holds.remove(f.id());
        if (hold != null && f.op().steps().get(0) instanceof OpStep.SplitAt) {
          OperatorEvents.rightHalf(f.op().rangeId(), view).ifPresent(r -> hold.extend(List.of(r.rangeId())));
        }
        out.add(OperatorEvents.finished(f.op(), view, now));
        log.info("operator finished {}", f.op());
        Optional.ofNullable(waiting.remove(f.id())).ifPresent(w -> w.complete(f.seen()));
      } else if (a instanceof OperatorQueue.Cancelled c) {
        holds.remove(c.id());
        log.warn("operator cancelled op={} reason={}", c.op(), c.reason());
        Event e = OperatorEvents.cancelled(c.op(), c.reason(), now);
        if (events.shouldLog(e, now)) {
          out.add(e);
        }
        Optional.ofNullable(waiting.remove(c.id())).ifPresent(w -> w.completeExceptionally(
            new OperatorCancelledException(c.op(), c.reason())));
      }
    }
    append(out);
  }

  /**
   * The range as the reports show it: the meta view's descriptor and the leader its leader reported (or,
   * before any report, the node whose answer created it). A provisional remnant counts: a heartbeat that
   * reports a split's right half before the left one trims the left's old entry to a remnant, which
   * still names the range (treating it as gone cancelled a split that had just succeeded, with a
   * "failed" event and a back-off on the range; DistributionIT's demo).
   */
  private Optional<OperatorQueue.Observed> observed(MetaView view, long rangeId) {
    Optional<RangeDescriptor> d = view.range(rangeId);
    if (d.isEmpty()) {
      return Optional.empty();
    }
    RangeDescriptor descriptor = d.get();
    // until a heartbeat reports the leader of a split's new half, the node that split it answers for it.
    // The leader may be a voter the descriptor does not list yet: an add joined it to the Raft
    // configuration and leadership went there before the add recorded the replica set (ZoneSpreadIT:
    // [n1, n2, n3] led by n4; filtering it out sent every step to n1, which answered "not leader, hint=n4")
    String leader = stats.leaderReport(rangeId).map(StatsBook.LeaderReport::nodeId)
        .or(() -> Optional.ofNullable(leaderHints.get(rangeId))).orElse("");
    return Optional.of(new OperatorQueue.Observed(descriptor, leader));
  }

  private void send(OperatorQueue.Send s, MetaView view) {
    long rangeId = s.op().rangeId();
    // a range reported dormant (or a merge's dormant right half) is woken before its step; so is any retry,
    // in case the range fell asleep after its last report
    boolean wake = s.attempt() > 0 || stats.isDormant(rangeId)
        || (s.step() instanceof OpStep.Merge m && stats.isDormant(m.rightRangeId()));
    Optional<StepCalls.Sent> call = calls.send(s, view, Optional.ofNullable(leaderHints.get(rangeId)), wake);
    if (call.isEmpty()) {
      queue.unsent(s.id(), s.index());
      return;
    }
    log.debug("operator step sent op={} step={} attempt={} nodeId={}", s.op(), s.step().describe(), s.attempt(),
        call.get().nodeId());
    call.get().reply().whenComplete((reply, err) -> answered(s, call.get().nodeId(), reply, err));
  }

  /**
   * A step's answer: report what it changed and advance at once. A failure is retried after a short delay
   * ({@link dev.rangekv.core.operator.StepTimeouts#retryDelay}), except a NOT_LEADER naming another node:
   * that retry goes there at once (it still counts as an attempt); and a refusal ({@link StepCalls#isRefusal}) cancels
   * the operator at once, as retrying cannot help. {@link StepCalls.Failure} reads which from the answer.
   */
  private void answered(OperatorQueue.Send s, String nodeId, StepCalls.Reply reply, Throwable err) {
    long rangeId = s.op().rangeId();
    if (err != null) {
      String message = unwrap(err).getMessage();
      log.warn("operator step failed rangeId={} step={} attempt={} nodeId={} error={}", rangeId, s.step().describe(),
          s.attempt(), nodeId, message);
      StepCalls.Failure failure = StepCalls.Failure.of(err, nodeId);
      queue.failed(s.id(), s.index(), message == null ? "" : message, failure.kind());
      // the answer is newer than the last heartbeat's leader report: without this the retry went back to
      // the reported (former) leader, which named the new one again, until the attempts ran out
      // (ConsoleDormancyIT: "split of r1 was cancelled: not leader of range 1, leader hint=n3")
      failure.leader().ifPresent(h -> learnLeader(rangeId, h));
      if (failure.kind() != OperatorQueue.Failure.RETRY) {
        poke(); // redirected or cancelled now, not a tick later
      }
      return;
    }
    reply.leader().ifPresent(l -> learnLeader(rangeId, l));
    if (reply.descriptors().size() == 2) {
      // a split's new half: its group starts on the same nodes; ask the node that split it first
      leaderHints.put(reply.descriptors().get(1).descriptor().rangeId(), nodeId);
    }
    report(reply.descriptors()).whenComplete((v, e) -> {
      if (e != null) {
        log.warn("could not report step result rangeId={} error={}", s.op().rangeId(), unwrap(e).getMessage());
      }
      poke();
    });
  }

  /** A step's answer named {@code nodeId} as the leader of {@code rangeId}: the next step goes there. */
  private void learnLeader(long rangeId, String nodeId) {
    stats.leaderMoved(rangeId, nodeId); // a range with a leader report
    leaderHints.put(rangeId, nodeId); // one without (yet)
  }

  /** Advances the queue now (an answer arrived), as a tick would, without planning. */
  private synchronized void poke() {
    if (meta.isLeader() && wasLeader) {
      leaderHints.keySet().removeIf(id -> stats.leaderReport(id).isPresent());
      advance(clock.getAsLong());
    }
  }

  private CompletableFuture<?> report(List<ReportedRange> descriptors) {
    if (descriptors.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return meta.propose(new MetaChange.Report(descriptors, clock.getAsLong()));
  }

  /**
   * Runs {@code op} (an admin call's, under {@code hold}): admitted now and its first step sent; completes
   * with the range as reported when every step has finished, or fails when it is cancelled.
   */
  synchronized CompletableFuture<OperatorQueue.Observed> run(Operator op, Optional<OperatorQueue.Hold> hold) {
    long now = clock.getAsLong();
    if (!meta.isLeader()) {
      return CompletableFuture.failedFuture(new OperatorCancelledException(op, "this node is not the meta leader"));
    }
    lead(now);
    Optional<Long> id = queue.admit(op, now, hold);
    if (id.isEmpty()) {
      long busy = op.rangeIds().stream().filter(r -> queue.holderName(r).isPresent()).findFirst().orElse(op.rangeId());
      return CompletableFuture.failedFuture(new RangeBusyException(busy, queue.holderName(busy).orElse("a step")));
    }
    CompletableFuture<OperatorQueue.Observed> done = new CompletableFuture<>();
    waiting.put(id.get(), done);
    hold.ifPresent(h -> holds.put(id.get(), h));
    advance(now);
    return done;
  }

  private void logRepetitive(TickPlan plan, SnapshotBuilder.Built built, long now) {
    events.prune(now);
    List<Event> out = new ArrayList<>();
    for (Event e : PlanEvents.of(plan, built.unmeasured(), now)) {
      if (events.shouldLog(e, now)) {
        out.add(e);
      }
    }
    for (NodeStats n : built.snapshot().nodes()) {
      boolean live = n.isLive(now, config.deadNodeTimeoutMillis());
      if (!live && knownDead.add(n.nodeId())) {
        out.add(EventRecorder.event("node-dead", List.of(), Explanation.of("no heartbeat within node.dead-timeout")
            .with("silentMillis", now - n.lastHeartbeatMillis())
            .with("deadTimeoutMillis", config.deadNodeTimeoutMillis()).build(), "node " + n.nodeId() + " is dead",
            now));
      } else if (live) {
        knownDead.remove(n.nodeId());
      }
    }
    append(out);
  }

  private void append(List<Event> out) {
    if (!out.isEmpty()) {
      events.append(out).whenComplete((v, e) -> {
        if (e != null) {
          log.warn("could not log controller events count={} error={}", out.size(), unwrap(e).getMessage());
        }
      });
    }
  }

  static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  // ------------------------------------------------------------------------------------------
  // Admin operations (MetaService Split/Merge/Move/PreSplit); each runs as operators, logged as events.

  /** Splits {@code rangeId} (or the range holding {@code splitKey} when 0) at the key or the store's midpoint. */
  public CompletableFuture<SplitHalves> split(long rangeId, Optional<Key> splitKey) {
    return admin.split(rangeId, splitKey);
  }

  /** Merges {@code leftRangeId} with its right neighbour, co-locating the right one first when needed. */
  public CompletableFuture<RangeDescriptor> merge(long leftRangeId) {
    return admin.merge(leftRangeId);
  }

  /** Moves the replica of {@code rangeId} on {@code fromNodeId} to {@code toNodeId}. */
  public CompletableFuture<RangeDescriptor> move(long rangeId, String fromNodeId, String toNodeId) {
    return admin.move(rangeId, fromNodeId, toNodeId);
  }

  /**
   * Splits at {@code splitKeys}, or at {@code uniform - 1} points splitting the 8-byte prefix space into
   * {@code uniform} ranges, then (when {@code scatter}) moves the resulting ranges' replicas so they
   * spread evenly over the live nodes. Completes with the resulting ranges.
   */
  public CompletableFuture<List<RangeDescriptor>> presplit(List<Key> splitKeys, int uniform,
      boolean scatter) {
    return admin.presplit(splitKeys, uniform, scatter);
  }
}
