package dev.rangekv.client.routing;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the routing cache's traffic: how often it went to a source, and the RPCs that cost
 * (meta range calls, node listings), so a tool or test can measure RPCs per cache miss. Thread-safe.
 */
public final class RouteStats {
  private final LongAdder lookups = new LongAdder();
  private final LongAdder metaCalls = new LongAdder();
  private final LongAdder nodeListCalls = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private final LongAdder watchUpdates = new LongAdder();

  /**
   * A snapshot of the counters.
   *
   * @param lookups cache refreshes that went to a source (misses, after coalescing)
   * @param metaCalls RPCs sent to the meta range (lookups, redirects followed, watch streams opened)
   * @param nodeListCalls {@code ListRanges} RPCs sent to nodes (the fan-out)
   * @param fallbacks refreshes that fell back to the nodes' listings (meta unavailable or trailing)
   * @param watchUpdates map changes pushed by the meta range's watch stream
   */
  public record Snapshot(long lookups, long metaCalls, long nodeListCalls, long fallbacks, long watchUpdates) {
    /** The RPCs of both kinds. */
    public long rpcs() {
      return metaCalls + nodeListCalls;
    }

    /** What happened between {@code before} and this snapshot. */
    public Snapshot minus(Snapshot before) {
      return new Snapshot(lookups - before.lookups, metaCalls - before.metaCalls, nodeListCalls - before.nodeListCalls,
          fallbacks - before.fallbacks, watchUpdates - before.watchUpdates);
    }
  }

  public Snapshot snapshot() {
    return new Snapshot(lookups.sum(), metaCalls.sum(), nodeListCalls.sum(), fallbacks.sum(), watchUpdates.sum());
  }

  void lookup() {
    lookups.increment();
  }

  void metaCall() {
    metaCalls.increment();
  }

  void nodeListCalls(int n) {
    nodeListCalls.add(n);
  }

  void fallback() {
    fallbacks.increment();
  }

  void watchUpdate() {
    watchUpdates.increment();
  }
}
