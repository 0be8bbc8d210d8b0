package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.operator.OpStep;
import dev.rangekv.core.operator.Operator;
import dev.rangekv.core.operator.OperatorKind;
import dev.rangekv.core.operator.StepTimeouts;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The operators the controller is running, advanced once per tick against the latest reports (PD's
 * operator controller, without its threads). {@link #advance} checks each operator's steps against
 * its range's reported descriptor and leader and answers what to do: send the due step (once, then
 * again only after its attempt timed out or its call failed), report an operator finished, or cancel
 * it with the reason (stale plan, range gone, a step out of attempts, deadline passed). A cancelled
 * operator's ranges back off for a while, so a failing node is not hammered.
 *
 * <p>Holds no clock and sends nothing: time comes in, actions go out. Thread-safe (one lock; calls are
 * short): ticks advance it, RPC callbacks record failures, admin calls admit operators.
 */
final class OperatorQueue {
  private final StepTimeouts timeouts;
  private final long backoffMillis;
  private final Map<Long, Running> running = new LinkedHashMap<>();
  private final Map<Long, Long> held = new HashMap<>();
  private final Map<Long, Long> backoffUntil = new HashMap<>();
  private final Map<Long, Hold> reserved = new HashMap<>();
  private long nextId = 1;

  /**
   * An admin call's hold on ranges for its whole run (a pre-split's splits and moves, a merge's
   * co-location): no planned operator takes them meanwhile, while the call's own operators may.
   */
  final class Hold {
    final String what;

    private Hold(String what) {
      this.what = what;
    }

    /** Adds ranges the call created (a split's right half), which nothing else can hold yet. */
    void extend(java.util.Collection<Long> ids) {
      synchronized (OperatorQueue.this) {
        ids.forEach(id -> reserved.putIfAbsent(id, this));
      }
    }

    /** The ranges held now. */
    Set<Long> ids() {
      synchronized (OperatorQueue.this) {
        Set<Long> out = new HashSet<>();
        reserved.forEach((id, h) -> {
          if (h == this) {
            out.add(id);
          }
        });
        return out;
      }
    }

    /** Ends the hold. */
    void release() {
      synchronized (OperatorQueue.this) {
        reserved.values().removeIf(h -> h == this);
      }
    }
  }

  /** What a range looks like in the reports: its newest descriptor and its leader (empty when unknown). */
  record Observed(RangeDescriptor descriptor, String leader) {
    Observed {
      Objects.requireNonNull(descriptor, "descriptor");
      Objects.requireNonNull(leader, "leader");
    }
  }

  /** What {@link #advance} asks the shell to do. */
  sealed interface Action {
    long id();

    Operator op();
  }

  /** Send {@code step} (index {@code index}) of operator {@code id}; {@code attempt} counts from 0. */
  record Send(long id, Operator op, int index, OpStep step, int attempt, Observed seen) implements Action {}

  /** Every step of operator {@code id} shows in the reports. */
  record Finished(long id, Operator op, Observed seen) implements Action {}

  /** Operator {@code id} was given up, for {@code reason}. */
  record Cancelled(long id, Operator op, String reason) implements Action {}

  private static final class Running {
    final Operator op;
    int step;
    int attempt;
    boolean sent;
    long sentAt;
    String error = "";
    /** How the last call failed, when it did: when the next attempt may go. */
    Failure failure = Failure.RETRY;
    /** Why the planner took the range back (a step aims at a dead node): cancel without backing off. */
    String preempted = "";

    Running(Operator op) {
      this.op = op;
    }
  }

  OperatorQueue(StepTimeouts timeouts, long backoffMillis) {
    this.timeouts = timeouts;
    this.backoffMillis = backoffMillis;
  }

  /**
   * Starts running {@code op} unless one of its ranges is held by another operator or backing off at
   * {@code nowMillis}; answers its id.
   */
  synchronized Optional<Long> admit(Operator op, long nowMillis) {
    return admit(op, nowMillis, Optional.empty());
  }

  /** As {@link #admit(Operator, long)}, for an admin call holding {@code hold}: its own ranges are free to it. */
  synchronized Optional<Long> admit(Operator op, long nowMillis, Optional<Hold> hold) {
    for (long r : op.rangeIds()) {
      Hold h = reserved.get(r);
      if (held.containsKey(r) || (h != null && (hold.isEmpty() || h != hold.get()))
          || (hold.isEmpty() && backoffUntil.getOrDefault(r, Long.MIN_VALUE) > nowMillis)) {
        return Optional.empty();
      }
    }
    long id = nextId++;
    running.put(id, new Running(op));
    op.rangeIds().forEach(r -> held.put(r, id));
    return Optional.of(id);
  }

  /** One pass over the running operators at {@code nowMillis}, in admission order. */
  synchronized List<Action> advance(long nowMillis, Function<Long, Optional<Observed>> reports) {
    backoffUntil.values().removeIf(until -> until <= nowMillis);
    List<Action> out = new ArrayList<>();
    for (Iterator<Map.Entry<Long, Running>> it = running.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Running> e = it.next();
      long id = e.getKey();
      Running r = e.getValue();
      Optional<Action> a = next(id, r, nowMillis, reports.apply(r.op.rangeId()));
      if (a.isPresent() && !(a.get() instanceof Send)) {
        it.remove();
        r.op.rangeIds().forEach(x -> held.remove(x, id));
        if (a.get() instanceof Cancelled && r.preempted.isEmpty()) {
          r.op.rangeIds().forEach(x -> backoffUntil.put(x, nowMillis + backoffMillis));
        }
      }
      a.ifPresent(out::add);
    }
    return out;
  }

  private Optional<Action> next(long id, Running r, long now, Optional<Observed> seen) {
    Operator op = r.op;
    if (seen.isEmpty()) {
      return Optional.of(new Cancelled(id, op, "r" + op.rangeId() + " is no longer in the map"));
    }
    if (!r.preempted.isEmpty()) {
      return Optional.of(new Cancelled(id, op, r.preempted));
    }
    Observed o = seen.get();
    if (r.step == 0 && !r.sent && o.descriptor().generation() != op.expectedGeneration()) {
      return Optional.of(new Cancelled(id, op, "r" + op.rangeId() + " changed since planned: generation "
          + o.descriptor().generation() + ", planned at " + op.expectedGeneration()));
    }
    int progress = op.progress(r.step, o.descriptor(), o.leader());
    if (progress == op.steps().size()) {
      return Optional.of(new Finished(id, op, o));
    }
    if (progress > r.step) {
      r.step = progress;
      r.attempt = 0;
      r.sent = false;
      r.error = "";
      r.failure = Failure.RETRY;
    }
    OpStep step = op.steps().get(r.step);
    if (now > op.deadlineMillis()) {
      return Optional.of(new Cancelled(id, op, "deadline passed at step " + (r.step + 1) + " of " + op.steps().size()
          + " (" + step.describe() + ")" + (r.error.isEmpty() ? "" : ": " + r.error)));
    }
    if (r.sent && r.error.isEmpty() && now - r.sentAt < timeouts.of(step)) {
      return Optional.empty(); // in flight
    }
    int resumed = op.resume(r.step, o.descriptor(), o.leader());
    if (resumed != r.step) {
      // the leadership came back to the replica this operator replaces or removes (the node refuses to
      // drop itself): move it off again first, with fresh attempts; the operator's deadline bounds it
      r.step = resumed;
      r.attempt = 0;
      r.failure = Failure.RETRY;
      step = op.steps().get(resumed);
    } else if (r.sent) {
      if (r.failure == Failure.REFUSED || r.attempt + 1 >= timeouts.attempts()) {
        // the last call's error says it best; a step that just never finished says how long it had
        String why = r.error.isEmpty() ? step.describe() + " not finished within " + timeouts.of(step) + " ms, "
            + timeouts.attempts() + " attempts" : r.error;
        return Optional.of(new Cancelled(id, op, why));
      }
      if (r.failure == Failure.RETRY && now - r.sentAt < timeouts.retryDelay(step, r.attempt)) {
        return Optional.empty(); // failed fast: give the node a moment before the next attempt
      }
      r.attempt++;
    }
    r.sent = true;
    r.sentAt = now;
    r.error = "";
    return Optional.of(new Send(id, op, r.step, step, r.attempt, o));
  }

  /** How a step's call failed, which says when (and whether) it is sent again. */
  enum Failure {
    /** Anything that may pass later (an unreachable node, a deadline): retried after {@link StepTimeouts#retryDelay}. */
    RETRY,
    /** The node named another leader: retried there by the next pass, at once. */
    REDIRECTED,
    /** The node refused the step for what it is: sending it again cannot help, so the next pass cancels it. */
    REFUSED
  }

  /** The call for step {@code index} of operator {@code id} failed: the next pass retries it after a delay or cancels it. */
  synchronized void failed(long id, int index, String error) {
    failed(id, index, error, Failure.RETRY);
  }

  /** As {@link #failed(long, int, String)}, failed as {@code failure} says. */
  synchronized void failed(long id, int index, String error, Failure failure) {
    Running r = running.get(id);
    if (r != null && r.step == index && r.sent) {
      r.error = error.isEmpty() ? "failed" : error;
      r.failure = failure;
    }
  }

  /**
   * The planner takes back the range of the operator running on {@code rangeId}, for {@code reason}: the
   * next pass cancels it, and its ranges do not back off (a repair is waiting for them). Answers whether
   * such an operator was running.
   */
  synchronized boolean preempt(long rangeId, String reason) {
    Long id = held.get(rangeId);
    Running r = id == null ? null : running.get(id);
    if (r == null || !r.preempted.isEmpty()) {
      return false;
    }
    r.preempted = reason;
    return true;
  }

  /** The running operators with the index of their current step, in admission order. */
  synchronized List<Map.Entry<Operator, Integer>> runningSteps() {
    return running.values().stream().map(r -> Map.entry(r.op, r.step)).toList();
  }

  /** Step {@code index} of operator {@code id} could not be sent (no leader known): the next pass sends it. */
  synchronized void unsent(long id, int index) {
    Running r = running.get(id);
    if (r != null && r.step == index) {
      r.sent = false;
    }
  }

  /**
   * A hold on {@code ids} for an admin call, unless an operator or another hold has one of them
   * (backing off does not stop a person).
   */
  synchronized Optional<Hold> reserve(java.util.Collection<Long> ids, String what) {
    for (long r : ids) {
      if (held.containsKey(r) || reserved.containsKey(r)) {
        return Optional.empty();
      }
    }
    Hold h = new Hold(what);
    ids.forEach(r -> reserved.put(r, h));
    return Optional.of(h);
  }

  /** What holds {@code rangeId} (an operator's kind or an admin call), if anything. */
  synchronized Optional<String> holderName(long rangeId) {
    Long id = held.get(rangeId);
    if (id != null) {
      return Optional.of(running.get(id).op.kind().eventKind());
    }
    Hold h = reserved.get(rangeId);
    return h == null ? Optional.empty() : Optional.of(h.what);
  }

  /** Ranges no new operator may take at {@code nowMillis}: held, reserved, or backing off after a cancellation. */
  synchronized Set<Long> locked(long nowMillis) {
    Set<Long> out = new HashSet<>(held.keySet());
    out.addAll(reserved.keySet());
    backoffUntil.forEach((r, until) -> {
      if (until > nowMillis) {
        out.add(r);
      }
    });
    return out;
  }

  /** The replica moves of the running operators (they count against the planner's budgets). */
  synchronized List<Move> moves() {
    List<Move> out = new ArrayList<>();
    running.values().forEach(r -> r.op.move().ifPresent(out::add));
    return out;
  }

  /** The kind of the operator holding {@code rangeId}, if any. */
  synchronized Optional<OperatorKind> holder(long rangeId) {
    Long id = held.get(rangeId);
    return id == null ? Optional.empty() : Optional.of(running.get(id).op.kind());
  }

  /** The running operators, in admission order. */
  synchronized List<Operator> running() {
    return running.values().stream().map(r -> r.op).toList();
  }

  /** Drops everything (this node lost the meta leadership: the next leader plans from the reports). */
  synchronized List<Cancelled> clear(String reason) {
    List<Cancelled> out = new ArrayList<>();
    running.forEach((id, r) -> out.add(new Cancelled(id, r.op, reason)));
    running.clear();
    held.clear();
    reserved.clear();
    backoffUntil.clear();
    return out;
  }
}
