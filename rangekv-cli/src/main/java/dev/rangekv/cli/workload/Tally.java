package dev.rangekv.cli.workload;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one window of a phase (warm-up or measured) counted: a latency histogram per operation kind for
 * operations that completed, failures by error kind, and compare-and-set conflicts (a read-modify-write
 * that found the value changed: the store answered, so it is an operation, not an error). Thread-safe.
 */
public final class Tally {
  private final Map<OpKind, LatencyHistogram> latencies = new EnumMap<>(OpKind.class);
  private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
  private final LongAdder conflicts = new LongAdder();

  public Tally() {
    for (OpKind k : OpKind.values()) {
      latencies.put(k, new LatencyHistogram());
    }
  }

  public void success(OpKind kind, long micros) {
    latencies.get(kind).record(micros);
  }

  public void conflict(OpKind kind, long micros) {
    conflicts.increment();
    success(kind, micros);
  }

  /** Counts one failure under {@code kind}: the client's error code, else the exception's class name. */
  public void error(String kind) {
    errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
  }

  /** Snapshots of the kinds that have completed at least one operation, in enum order. */
  public Map<OpKind, LatencyHistogram.Snapshot> latencies() {
    Map<OpKind, LatencyHistogram.Snapshot> out = new EnumMap<>(OpKind.class);
    latencies.forEach((k, h) -> {
      LatencyHistogram.Snapshot s = h.snapshot();
      if (s.count() > 0) {
        out.put(k, s);
      }
    });
    return out;
  }

  /** All kinds together. */
  public LatencyHistogram.Snapshot total() {
    LatencyHistogram.Snapshot t = LatencyHistogram.Snapshot.empty();
    for (LatencyHistogram h : latencies.values()) {
      t = t.plus(h.snapshot());
    }
    return t;
  }

  /** Failures by kind, sorted by kind. */
  public Map<String, Long> errors() {
    Map<String, Long> out = new TreeMap<>();
    errors.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  public long errorCount() {
    return errors.values().stream().mapToLong(LongAdder::sum).sum();
  }

  public long conflicts() {
    return conflicts.sum();
  }
}
