package dev.rangekv.client.routing;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.ScanPiece;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * The shell around {@link RouteTable}: one atomic reference swapped on every update; at most one whole
 * refresh from the {@link RangeSource} in flight, and at most one lookup per missed span, which every
 * concurrent miss on that span shares (as CockroachDB's range cache coalesces lookups). A lookup whose
 * answer teaches the cache nothing about the span (the source trails the nodes) asks the source's
 * {@linkplain RangeSource#fallback fallback} before giving up. Thread-safe; reads are a volatile load.
 */
public final class RouteCache {
  private static final System.Logger log = System.getLogger(RouteCache.class.getName()); // no logging library
  private final RangeSource source;
  private final RouteStats stats;
  private final AtomicReference<RouteTable> table = new AtomicReference<>(RouteTable.empty());
  private final AtomicReference<CompletableFuture<RouteTable>> inFlight = new AtomicReference<>();
  /** Lookups in flight by the start of the span they refresh. */
  private final ConcurrentMap<Key, CompletableFuture<RouteTable>> spans = new ConcurrentHashMap<>();

  public RouteCache(RangeSource source) {
    this(source, new RouteStats());
  }

  /** A cache counting its lookups in {@code stats} (share it with the source to count RPCs too). */
  public RouteCache(RangeSource source, RouteStats stats) {
    this.source = source;
    this.stats = stats;
  }

  public RouteStats stats() {
    return stats;
  }

  /**
   * Refreshes the span {@code [start, end)} a call missed on (a placeholder, or a descriptor the nodes
   * refused): joins the lookup of that span already running, else asks the source for the span and, if
   * its answer changed nothing there, the source's fallback. Completes with the table after it, or
   * exceptionally when the source (and fallback) failed.
   */
  public CompletableFuture<RouteTable> refresh(Key start, RangeEnd end) {
    return refresh(start, end, Optional.empty());
  }

  /**
   * Refreshes the span of {@code missed}, the entry (descriptor or placeholder) a call read from the table
   * and could not use, unless the table no longer holds it there: then a lookup (or news) replaced it
   * after the call read it, and the call retries on the table as it is now, without a lookup. A call that
   * read the table just before the shared lookup of its span finished would otherwise start a second
   * lookup of a span the cache already knows, which teaches nothing and so goes on to the fallback (as
   * CockroachDB's eviction token evicts only the entry its caller saw).
   */
  public CompletableFuture<RouteTable> refresh(RangeDescriptor missed) {
    return refresh(missed.start(), missed.end(), Optional.of(missed));
  }

  private CompletableFuture<RouteTable> refresh(Key start, RangeEnd end, Optional<RangeDescriptor> missed) {
    CompletableFuture<RouteTable> mine = new CompletableFuture<>();
    CompletableFuture<RouteTable> running = spans.putIfAbsent(start, mine);
    if (running != null) {
      return running;
    }
    // checked after taking the span's slot: a lookup updates the table before it frees the slot, so a
    // call that got the slot sees that lookup's answer here
    RouteTable now = table.get();
    if (missed.isPresent() && !now.map().lookup(missed.get().start()).equals(missed.get())) {
      log.log(System.Logger.Level.DEBUG, () -> "span lookup skipped, the table replaced the entry missed=" + missed.get()
          + " now=" + now.map().lookup(missed.get().start()));
      spans.remove(start, mine);
      mine.complete(now);
      return mine;
    }
    stats.lookup();
    RouteTable before = now;
    log.log(System.Logger.Level.DEBUG, () -> "span lookup start=" + start + " end=" + end + " cached=" + before.map().scanPlan(start, end));
    CompletableFuture<RangeSnapshot> fetched;
    try {
      fetched = source.lookup(start, end, before);
    } catch (RuntimeException e) {
      fetched = CompletableFuture.failedFuture(e);
    }
    fetched.thenCompose(snapshot -> {
      RouteTable after = update(t -> t.withSnapshot(snapshot));
      Optional<RangeSource> fallback = source.fallback();
      if (fallback.isEmpty() || snapshot.fromFallback() || learnt(before, after, start, end)) {
        return CompletableFuture.completedFuture(after);
      }
      stats.fallback();
      log.log(System.Logger.Level.DEBUG, () -> "span lookup taught nothing, asking the fallback start=" + start + " end=" + end);
      return fallback.get().fetch(after).thenApply(s -> update(t -> t.withSnapshot(s)));
    }).whenComplete((t, error) -> {
      spans.remove(start, mine);
      if (error != null) {
        mine.completeExceptionally(error);
      } else {
        mine.complete(t);
      }
    });
    return mine;
  }

  /** True when {@code after} routes some of {@code [start, end)} differently from {@code before}. */
  static boolean learnt(RouteTable before, RouteTable after, Key start, RangeEnd end) {
    List<ScanPiece> was = before.map().scanPlan(start, end);
    List<ScanPiece> is = after.map().scanPlan(start, end);
    if (!was.equals(is)) {
      return true;
    }
    for (ScanPiece p : is) {
      long id = p.range().rangeId();
      if (!before.leader(id).equals(after.leader(id))) {
        return true;
      }
    }
    return false;
  }

  /** Folds descriptors pushed by a watch stream (generations decide, as for any source). */
  public void learnSnapshot(RangeSnapshot snapshot) {
    update(t -> t.withSnapshot(snapshot));
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
      stats.lookup();
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
