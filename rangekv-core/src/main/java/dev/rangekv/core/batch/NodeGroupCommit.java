package dev.rangekv.core.batch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Group commit over many lanes (the ranges a node leads) with a shared bound on batches in flight: each
 * lane is a {@link GroupCommitQueue} (items wait while the lane's own batches are out), and in addition at
 * most {@code maxActive} batches of all lanes together are out at once. A lane that could send while the
 * node is at its bound queues for a slot, first come first served, and keeps collecting items meanwhile,
 * so its next batch is larger. An item offered when nothing is out still leaves at once: no wait is
 * added when idle.
 *
 * <p>Why: every Raft entry costs a near-fixed amount of CPU on all three replicas (appendEntries round
 * trips, log writes and fsyncs, thread hand-offs), whatever it carries. With writers spread over many
 * ranges, one batch in flight per range alone lets every range propose small entries in parallel, and a
 * machine whose CPU is the limit then spends it on entries instead of writes (BENCHMARKS.md, "8 ranges
 * against 1").
 *
 * <p>Liveness: a batch out longer than {@code stallNanos} stops counting against the shared bound (a
 * range that lost its quorum must not hold up the others), so a queued lane waits at most that long for
 * a slot; the shell calls {@link #tick} at {@link #nextTick} while lanes are queued.
 *
 * <p>Not thread-safe: a pure state machine driven with clock values; its shell calls it under one lock
 * and sends the batches it returns outside that lock.
 *
 * @param <K> a lane (a range id)
 * @param <T> an item (a write)
 */
public final class NodeGroupCommit<K, T> {
  /** One batch to send now: {@code items} of {@code lane}, in offer order. */
  public record Batch<K, T>(K lane, List<T> items) {
    public Batch {
      items = List.copyOf(items);
    }
  }

  private final int maxActive;
  private final long stallNanos;
  private final int perLaneInFlight;
  private final int maxItems;
  private final long maxBytes;
  private final ToLongFunction<T> sizeOf;
  private final Map<K, Lane<T>> lanes = new HashMap<>();
  /** Lanes that could send but wait for a shared slot, in the order they started waiting. */
  private final ArrayDeque<K> queued = new ArrayDeque<>();
  /** Start times of the batches out that still count (not stalled): time -> how many. */
  private final TreeMap<Long, Integer> active = new TreeMap<>();
  private int activeCount;

  /** One lane: its queue, the start times of its batches out (oldest first), and whether it is queued. */
  private static final class Lane<T> {
    final GroupCommitQueue<T> queue;
    final ArrayDeque<Long> starts = new ArrayDeque<>();
    boolean queued;

    Lane(GroupCommitQueue<T> queue) {
      this.queue = queue;
    }
  }

  /**
   * @param maxActive batches of all lanes out at once (not counting stalled ones)
   * @param stallNanos how long a batch counts against {@code maxActive}
   * @param perLaneInFlight batches of one lane out at once
   * @param maxItems items in one batch
   * @param maxBytes bytes in one batch, unless a single item is larger
   */
  public NodeGroupCommit(int maxActive, long stallNanos, int perLaneInFlight, int maxItems, long maxBytes,
      ToLongFunction<T> sizeOf) {
    if (maxActive < 1 || stallNanos < 1) {
      throw new IllegalArgumentException("node group commit bounds must be positive: maxActive=" + maxActive
          + " stallNanos=" + stallNanos);
    }
    new GroupCommitQueue<T>(perLaneInFlight, maxItems, maxBytes, sizeOf); // validates the lane bounds
    this.maxActive = maxActive;
    this.stallNanos = stallNanos;
    this.perLaneInFlight = perLaneInFlight;
    this.maxItems = maxItems;
    this.maxBytes = maxBytes;
    this.sizeOf = sizeOf;
  }

  /** Adds {@code item} to {@code lane}; returns the batches to send now (holding it or not). */
  public List<Batch<K, T>> offer(K lane, T item, long nowNanos) {
    Lane<T> l = lanes.computeIfAbsent(lane,
        k -> new Lane<>(new GroupCommitQueue<>(perLaneInFlight, maxItems, maxBytes, sizeOf)));
    l.queue.add(item);
    List<Batch<K, T>> out = new ArrayList<>(1);
    expire(nowNanos);
    if (l.queue.canSend() && !l.queued) {
      if (activeCount < maxActive && queued.isEmpty()) {
        out.add(send(lane, l, nowNanos));
      } else {
        queue(lane, l);
      }
    }
    drain(nowNanos, out); // slots freed by stalls since the last call go to the lanes queued first
    return out;
  }

  /** One batch of {@code lane} finished (either way); returns the batches to send now. */
  public List<Batch<K, T>> completed(K lane, long nowNanos) {
    Lane<T> l = lanes.get(lane);
    if (l == null || l.starts.isEmpty()) {
      throw new IllegalStateException("node group commit: a batch of lane " + lane + " completed but none was out");
    }
    l.queue.release();
    expire(nowNanos);
    long started = l.starts.pollFirst();
    if (active.containsKey(started) && started > nowNanos - stallNanos) {
      uncount(started);
    }
    List<Batch<K, T>> out = new ArrayList<>(1);
    if (l.queue.canSend() && !l.queued) {
      queue(lane, l); // behind the lanes already waiting: each gets its turn
    }
    drain(nowNanos, out);
    if (l.queue.isIdle()) {
      lanes.remove(lane);
    }
    return out;
  }

  /** Releases queued lanes whose wait outlived the batches ahead of them (stalled ones stop counting). */
  public List<Batch<K, T>> tick(long nowNanos) {
    expire(nowNanos);
    List<Batch<K, T>> out = new ArrayList<>();
    drain(nowNanos, out);
    return out;
  }

  /** When {@link #tick} may release a queued lane: empty when none is queued. */
  public OptionalLong nextTick() {
    if (queued.isEmpty() || active.isEmpty()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(active.firstKey() + stallNanos);
  }

  /** True when nothing of {@code lane} waits or is out. */
  public boolean idle(K lane) {
    Lane<T> l = lanes.get(lane);
    return l == null || l.queue.isIdle();
  }

  /** Batches out that count against the shared bound. */
  public int active() {
    return activeCount;
  }

  /** Lanes waiting for a shared slot. */
  public int queuedLanes() {
    return queued.size();
  }

  private void queue(K lane, Lane<T> l) {
    l.queued = true;
    queued.addLast(lane);
  }

  private void drain(long nowNanos, List<Batch<K, T>> out) {
    while (activeCount < maxActive && !queued.isEmpty()) {
      K lane = queued.pollFirst();
      Lane<T> l = lanes.get(lane);
      l.queued = false;
      if (l.queue.canSend()) {
        out.add(send(lane, l, nowNanos));
        if (l.queue.canSend()) {
          queue(lane, l); // more than one batch per lane allowed: it queues again for the next
        }
      }
    }
  }

  private Batch<K, T> send(K lane, Lane<T> l, long nowNanos) {
    List<T> items = l.queue.send();
    l.starts.addLast(nowNanos);
    active.merge(nowNanos, 1, Integer::sum);
    activeCount++;
    return new Batch<>(lane, items);
  }

  /** Batches out since {@code stallNanos} or longer stop counting. */
  private void expire(long nowNanos) {
    while (!active.isEmpty() && active.firstKey() <= nowNanos - stallNanos) {
      activeCount -= active.pollFirstEntry().getValue();
    }
  }

  private void uncount(long started) {
    active.computeIfPresent(started, (k, n) -> n == 1 ? null : n - 1);
    activeCount--;
  }

  @Override
  public String toString() {
    return "NodeGroupCommit[active=" + activeCount + " queuedLanes=" + queued.size() + " lanes=" + lanes.size() + "]";
  }
}
