package dev.rangekv.testkit.linearizability;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Records the operations of concurrent clients as they run: {@link #invoke} just before a call is
 * sent, then {@link #complete} with what the client was told, {@link #ambiguous} when it was not told
 * (a timeout, an ambiguous error), or {@link #failed} when the call definitely did not take effect
 * (it is dropped: it must never be seen). A call still open when {@link #operations} is read never
 * completed and counts as ambiguous. Times come from the clock passed in. Thread-safe.
 */
public final class History {
  private record Open(int client, String key, Call call, long invoke) {}

  private final LongSupplier clock;
  private final List<Open> invoked = new ArrayList<>();
  private final List<Operation> closed = new ArrayList<>();
  private final List<Boolean> done = new ArrayList<>();

  /** @param clock a monotonic clock, e.g. {@code System::nanoTime} */
  public History(LongSupplier clock) {
    this.clock = clock;
  }

  /** Records that {@code client} is about to make {@code call} on {@code key}; returns the call's id. */
  public synchronized int invoke(int client, String key, Call call) {
    invoked.add(new Open(client, Objects.requireNonNull(key), Objects.requireNonNull(call), clock.getAsLong()));
    done.add(false);
    return invoked.size() - 1;
  }

  /** Records the result call {@code id} returned. */
  public synchronized void complete(int id, Result result) {
    if (result instanceof Result.Unknown) {
      ambiguous(id);
      return;
    }
    close(id, result, clock.getAsLong());
  }

  /** Records that call {@code id} ended without telling whether it took effect. */
  public synchronized void ambiguous(int id) {
    close(id, new Result.Unknown(), Operation.NEVER);
  }

  /** Records that call {@code id} definitely did not take effect: it leaves the history. */
  public synchronized void failed(int id) {
    markDone(id);
  }

  /** Every operation recorded so far; calls still open count as ambiguous. */
  public synchronized List<Operation> operations() {
    List<Operation> out = new ArrayList<>(closed);
    for (int id = 0; id < invoked.size(); id++) {
      if (!done.get(id)) {
        Open o = invoked.get(id);
        out.add(new Operation(id, o.client(), o.key(), o.call(), new Result.Unknown(), o.invoke(), Operation.NEVER));
      }
    }
    return out;
  }

  private void close(int id, Result result, long complete) {
    markDone(id);
    Open o = invoked.get(id);
    closed.add(new Operation(id, o.client(), o.key(), o.call(), result, o.invoke(), complete));
  }

  private void markDone(int id) {
    if (done.get(id)) {
      throw new IllegalStateException("call " + id + " completed twice");
    }
    done.set(id, true);
  }
}
