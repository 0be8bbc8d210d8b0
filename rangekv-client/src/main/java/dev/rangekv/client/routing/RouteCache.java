package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * The shell around {@link RouteTable}: one atomic reference swapped on every update, and at most one
 * refresh from the {@link RangeSource} in flight, which every concurrent miss shares. Thread-safe;
 * reads are a volatile load.
 */
public final class RouteCache {
  private final RangeSource source;
  private final AtomicReference<RouteTable> table = new AtomicReference<>(RouteTable.empty());
  private final AtomicReference<CompletableFuture<RouteTable>> inFlight = new AtomicReference<>();

  public RouteCache(RangeSource source) {
    this.source = source;
  }

  public RouteTable current() {
    return table.get();
  }

  /**
   * Reloads from the source; joins the refresh already running if there is one. The future completes
   * with the new table, or exceptionally when the source failed (the table is then unchanged).
   */
  public CompletableFuture<RouteTable> refresh() {
    while (true) {
      CompletableFuture<RouteTable> running = inFlight.get();
      if (running != null) {
        return running;
      }
      CompletableFuture<RouteTable> mine = new CompletableFuture<>();
      if (!inFlight.compareAndSet(null, mine)) {
        continue;
      }
      CompletableFuture<RangeSnapshot> fetched;
      try {
        fetched = source.fetch(table.get());
      } catch (RuntimeException e) {
        fetched = CompletableFuture.failedFuture(e);
      }
      fetched.whenComplete((snapshot, error) -> {
        inFlight.set(null);
        if (error != null) {
          mine.completeExceptionally(error);
        } else {
          mine.complete(update(t -> t.withSnapshot(snapshot)));
        }
      });
      return mine;
    }
  }

  /** Installs RANGE_MOVED news; true when the cache learnt something from it. */
  public boolean learnMoved(List<RangeDescriptor> current, Map<String, String> addresses) {
    RouteTable before = table.get();
    RouteTable after = update(t -> t.withMoved(current, addresses));
    return after != before;
  }

  public void learnLeader(long rangeId, String nodeId, String address) {
    update(t -> t.withLeader(rangeId, nodeId, address));
  }

  /** Replaces the whole table, e.g. with a snapshot a test or a tool built. */
  public void install(RouteTable replacement) {
    table.set(replacement);
  }

  private RouteTable update(UnaryOperator<RouteTable> change) {
    return table.updateAndGet(change);
  }
}
