package dev.rangekv.server.node;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.storage.NodeStore;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts spans after range deletes, one at a time on its own thread: a range delete only writes a
 * tombstone, so without this the deleted bytes would keep counting in the range's size (and a range
 * emptied by a delete would never look small enough to merge). Repeated deletes of one span while a
 * compaction is queued are folded into one.
 */
final class SpanCompactor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SpanCompactor.class);
  private record Span(Key lo, RangeEnd hi) {}

  private final NodeStore store;
  private final ExecutorService executor;
  private final Set<Span> queued = new LinkedHashSet<>();

  SpanCompactor(NodeStore store, String nodeId) {
    this.store = store;
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "rangekv-" + nodeId + "-compactions");
      t.setDaemon(true);
      return t;
    });
  }

  /** Queues a compaction of {@code [lo, hi)} unless one is queued already. */
  void deleted(Key lo, RangeEnd hi) {
    Span span = new Span(lo, hi);
    synchronized (queued) {
      if (!queued.add(span)) {
        return;
      }
    }
    try {
      executor.execute(() -> compact(span));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // called from a state machine's apply, which must not throw; RocksDB compacts the span by itself later
      log.info("node closing: compaction after range delete skipped lo={} hi={}", lo, hi);
    }
  }

  private void compact(Span span) {
    synchronized (queued) {
      queued.remove(span);
    }
    try {
      long start = System.nanoTime();
      store.compactSpan(span.lo(), span.hi());
      log.info("span compacted after range delete lo={} hi={} millis={}", span.lo(), span.hi(),
          (System.nanoTime() - start) / 1_000_000);
    } catch (RuntimeException e) {
      log.warn("compaction after range delete failed lo={} hi={} error={}", span.lo(), span.hi(), e.toString(), e);
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      // the store closes next: a compaction still running in RocksDB must finish first
      if (!executor.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)) {
        log.warn("a span compaction still runs after 30 s; closing anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
