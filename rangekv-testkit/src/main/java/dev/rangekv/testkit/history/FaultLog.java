package dev.rangekv.testkit.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fault windows of a run (a kill until the node is back, a pause until it resumes, a split...)
 * and the operations that failed, each attributed to the faults whose window (extended by a grace
 * period: the client's deadline) overlaps it, or to {@link #OUTSIDE}. Also the longest acknowledged
 * write that overlapped a window, per kind: the write stall a fault caused. Times are nanoseconds from
 * any one origin, passed in. Thread-safe.
 */
public final class FaultLog {
  /** The kind under which failures outside every fault window are counted. */
  public static final String OUTSIDE = "outside-faults";

  private record Window(String kind, long start, long end) {
    boolean overlaps(long from, long to, long grace) {
      return start <= to && (end < 0 || end + grace >= from);
    }
  }

  private final long graceNanos;
  private final List<Window> windows = new ArrayList<>();
  private final Map<String, Long> failures = new TreeMap<>();
  private final Map<String, Long> stalls = new TreeMap<>();
  private final List<String> outsideSamples = new ArrayList<>();

  /** @param graceNanos how long after a window closes its fault may still fail an operation */
  public FaultLog(long graceNanos) {
    this.graceNanos = graceNanos;
  }

  /** Opens a window of {@code kind} at {@code start}; returns its id for {@link #close}. */
  public synchronized int open(String kind, long start) {
    windows.add(new Window(kind, start, -1));
    failures.putIfAbsent(kind, 0L);
    return windows.size() - 1;
  }

  /** Closes window {@code id} at {@code end}. */
  public synchronized void close(int id, long end) {
    Window w = windows.get(id);
    windows.set(id, new Window(w.kind(), w.start(), Math.max(end, w.start())));
  }

  /**
   * Records an operation that failed between {@code start} and {@code end}; counts it under every kind
   * whose window overlaps, or under {@link #OUTSIDE}. Returns whether it fell outside every window.
   */
  public synchronized boolean failed(long start, long end, String what) {
    boolean any = false;
    for (String kind : kindsOverlapping(start, end)) {
      failures.merge(kind, 1L, Long::sum);
      any = true;
    }
    if (!any) {
      failures.merge(OUTSIDE, 1L, Long::sum);
      if (outsideSamples.size() < 20) {
        outsideSamples.add(what);
      }
    }
    return !any;
  }

  /** Records an acknowledged write that ran from {@code start} to {@code end}. */
  public synchronized void acked(long start, long end) {
    for (String kind : kindsOverlapping(start, end)) {
      stalls.merge(kind, end - start, Math::max);
    }
  }

  /** Failed operations per fault kind (every kind that had a window, even with 0), and {@link #OUTSIDE}. */
  public synchronized Map<String, Long> failuresByKind() {
    Map<String, Long> out = new TreeMap<>(failures);
    out.putIfAbsent(OUTSIDE, 0L);
    return out;
  }

  /** Windows opened per kind. */
  public synchronized Map<String, Long> windowsByKind() {
    Map<String, Long> out = new TreeMap<>();
    windows.forEach(w -> out.merge(w.kind(), 1L, Long::sum));
    return out;
  }

  /** The longest acknowledged write that overlapped a window of each kind, in nanoseconds. */
  public synchronized Map<String, Long> longestStallByKind() {
    return new TreeMap<>(stalls);
  }

  /** Up to 20 descriptions of failures outside every window. */
  public synchronized List<String> outsideSamples() {
    return List.copyOf(outsideSamples);
  }

  private List<String> kindsOverlapping(long start, long end) {
    List<String> kinds = new ArrayList<>();
    for (Window w : windows) {
      if (w.overlaps(start, end, graceNanos) && !kinds.contains(w.kind())) {
        kinds.add(w.kind());
      }
    }
    return kinds;
  }
}
