package dev.rangekv.core.batch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Items offered while {@code maxInFlight} batches are out wait, and leave together as one batch when a
 * batch completes (group commit, as CockroachDB's proposal buffer and RheaKV's batching do). An item
 * offered while fewer batches are out leaves at once, alone: batching never adds a wait when idle. A
 * batch holds at most {@code maxItems} items and, unless a single item is larger, at most {@code
 * maxBytes} bytes; items leave in the order they were offered, each exactly once.
 *
 * <p>Not thread-safe: a pure state machine; its shell calls it under one lock and sends the batches
 * it returns outside that lock.
 *
 * @param <T> an item (a write, a call)
 */
public final class GroupCommitQueue<T> {
  private final int maxInFlight;
  private final int maxItems;
  private final long maxBytes;
  private final ToLongFunction<T> sizeOf;
  private final ArrayDeque<T> waiting = new ArrayDeque<>();
  private long waitingBytes;
  private int inFlight;

  public GroupCommitQueue(int maxInFlight, int maxItems, long maxBytes, ToLongFunction<T> sizeOf) {
    if (maxInFlight < 1 || maxItems < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("group commit bounds must be positive: maxInFlight=" + maxInFlight
          + " maxItems=" + maxItems + " maxBytes=" + maxBytes);
    }
    this.maxInFlight = maxInFlight;
    this.maxItems = maxItems;
    this.maxBytes = maxBytes;
    this.sizeOf = sizeOf;
  }

  /** Adds {@code item}; returns the batch to send now (which then holds it), or an empty list when it waits. */
  public List<T> offer(T item) {
    waiting.add(item);
    waitingBytes += sizeOf.applyAsLong(item);
    return inFlight < maxInFlight ? take() : List.of();
  }

  /** One sent batch finished (either way); returns the next batch to send, or an empty list. */
  public List<T> completed() {
    if (inFlight == 0) {
      throw new IllegalStateException("group commit: a batch completed but none was in flight");
    }
    inFlight--;
    return waiting.isEmpty() ? List.of() : take();
  }

  /** Adds {@code item} to wait for {@link #send}, whatever is in flight (for a shell that gates sends itself). */
  public void add(T item) {
    waiting.add(item);
    waitingBytes += sizeOf.applyAsLong(item);
  }

  /** True when items wait and fewer than {@code maxInFlight} batches are out. */
  public boolean canSend() {
    return !waiting.isEmpty() && inFlight < maxInFlight;
  }

  /** Takes the next batch (it is then in flight); only when {@link #canSend}. */
  public List<T> send() {
    if (!canSend()) {
      throw new IllegalStateException("group commit: send with nothing to send or no free slot: " + this);
    }
    return take();
  }

  /** One sent batch finished (either way), without taking the next: the shell decides when to {@link #send}. */
  public void release() {
    if (inFlight == 0) {
      throw new IllegalStateException("group commit: a batch completed but none was in flight");
    }
    inFlight--;
  }

  /** Batches sent and not yet completed. */
  public int inFlight() {
    return inFlight;
  }

  /** Items waiting for a batch to complete. */
  public int waiting() {
    return waiting.size();
  }

  /** True when nothing waits and nothing is in flight. */
  public boolean isIdle() {
    return inFlight == 0 && waiting.isEmpty();
  }

  private List<T> take() {
    List<T> batch = new ArrayList<>(Math.min(waiting.size(), maxItems));
    long bytes = 0;
    while (!waiting.isEmpty() && batch.size() < maxItems) {
      long next = sizeOf.applyAsLong(waiting.peekFirst());
      if (!batch.isEmpty() && bytes + next > maxBytes) {
        break;
      }
      batch.add(waiting.pollFirst());
      bytes += next;
      waitingBytes -= next;
    }
    inFlight++;
    return batch;
  }

  @Override
  public String toString() {
    return "GroupCommitQueue[inFlight=" + inFlight + " waiting=" + waiting.size() + " waitingBytes=" + waitingBytes + "]";
  }
}
