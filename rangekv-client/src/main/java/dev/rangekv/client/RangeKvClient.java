package dev.rangekv.client;

import dev.rangekv.client.routing.Await;
import dev.rangekv.client.routing.MetaRangeSource;
import dev.rangekv.client.routing.RangeWatch;
import dev.rangekv.client.routing.RouteStats;
import dev.rangekv.client.routing.NodeChannels;
import dev.rangekv.client.routing.NodeListRangeSource;
import dev.rangekv.client.routing.RangeSource;
import dev.rangekv.client.routing.ReplanException;
import dev.rangekv.client.routing.RouteCache;
import dev.rangekv.client.routing.RouteTable;
import dev.rangekv.client.routing.Router;
import dev.rangekv.client.routing.WriteIds;
import dev.rangekv.client.scan.ParallelScanIterator;
import dev.rangekv.client.scan.ScanCursor;
import dev.rangekv.client.scan.ScanIterator;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.client.scan.ScanState;
import dev.rangekv.client.scan.Scanner;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.ScanPiece;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The RangeKV client: routes each call from a cache of range descriptors, learns from RANGE_MOVED and
 * NOT_LEADER answers, retries a bounded number of times within the call's deadline, and never re-applies
 * a write blindly (retries reuse the write id; an unknown outcome surfaces as {@link
 * AmbiguousResultException}). Every call has a {@code CompletableFuture} form ({@code *Async}) and a
 * blocking form. Thread-safe; share one instance.
 *
 * <p>Failures are {@link RangeKvException}s (in async form, the cause of the future's exception).
 */
public final class RangeKvClient implements AutoCloseable {
  private final Shared shared;
  private final Duration timeout;

  private record Shared(Router router, Scanner scanner, NodeChannels channels, ScheduledExecutorService timer,
      ClientOptions options, Optional<RangeWatch> watch) {}

  private RangeKvClient(Shared shared, Duration timeout) {
    this.shared = shared;
    this.timeout = timeout;
  }

  /**
   * Connects through seed nodes: routes come from the meta range (found through the seeds; the whole map
   * at connect when it is small, a lookup per missed span after that), and from the nodes' own range
   * listings while the meta range cannot answer.
   */
  public static RangeKvClient connect(List<String> seedAddresses, ClientOptions options) {
    NodeChannels channels = new NodeChannels(options.tls());
    RouteStats stats = new RouteStats();
    NodeListRangeSource nodes = new NodeListRangeSource(seedAddresses, channels, options.refreshTimeout(), stats);
    MetaRangeSource meta = new MetaRangeSource(seedAddresses, channels, options.refreshTimeout(), nodes, stats);
    return connect(meta, Optional.of(meta), channels, stats, options);
  }

  /** Connects with a custom source of range descriptors (e.g. the nodes' listings only, or a test's). */
  public static RangeKvClient connect(RangeSource source, ClientOptions options) {
    return connect(source, Optional.empty(), new NodeChannels(options.tls()), new RouteStats(), options);
  }

  private static RangeKvClient connect(RangeSource source, Optional<MetaRangeSource> meta, NodeChannels channels,
      RouteStats stats, ClientOptions options) {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rangekv-client-timer");
      t.setDaemon(true);
      return t;
    });
    RouteCache cache = new RouteCache(source, stats);
    Router router = new Router(cache, channels, options.retry(), timer, new WriteIds(), options.attemptTimeout());
    Optional<RangeWatch> watch = meta.filter(m -> options.watchRanges())
        .map(m -> new RangeWatch(m, channels, cache, timer, stats));
    RangeKvClient client = new RangeKvClient(
        new Shared(router, new Scanner(router, options.timeout()), channels, timer, options, watch), options.timeout());
    try {
      initialRefresh(cache, options);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
    watch.ifPresent(RangeWatch::start);
    return client;
  }

  /** Counters of the routing cache's lookups and the RPCs they cost (meta calls, node listings). */
  public RouteStats.Snapshot routeStats() {
    return router().cache().stats().snapshot();
  }

  /** Fills the cache, retrying within the call timeout: seed nodes may still be starting. */
  private static void initialRefresh(RouteCache cache, ClientOptions options) {
    long deadline = System.nanoTime() + options.timeout().toNanos();
    for (int attempt = 1; ; attempt++) {
      try {
        Await.result(cache.refresh(), deadline);
        return;
      } catch (RangeKvException e) {
        long backoff = options.retry().backoffNanos(attempt, ThreadLocalRandom.current().nextDouble());
        if (attempt >= options.retry().maxAttempts() || System.nanoTime() + backoff >= deadline) {
          throw e;
        }
        try {
          TimeUnit.NANOSECONDS.sleep(backoff); // connect blocks its caller anyway; nothing else to wait on
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** A view of this client whose calls use {@code callTimeout} as their deadline; shares everything else. */
  public RangeKvClient withTimeout(Duration callTimeout) {
    return new RangeKvClient(shared, callTimeout);
  }

  private long deadline() {
    return System.nanoTime() + timeout.toNanos();
  }

  private Router router() {
    return shared.router();
  }

  // ----------------------------------------------------------------------------------------------
  // async

  public CompletableFuture<Optional<byte[]>> getAsync(Key key) {
    return router().execute(KvOps.get(key), deadline());
  }

  public CompletableFuture<Void> putAsync(Key key, byte[] value) {
    return router().execute(KvOps.put(key, KvOps.value(value)), deadline());
  }

  public CompletableFuture<Void> deleteAsync(Key key) {
    return router().execute(KvOps.delete(key), deadline());
  }

  /**
   * Sets {@code key} to {@code newValue} (deletes it when empty) only if it holds {@code expected}
   * (empty: only if absent).
   */
  public CompletableFuture<CasResult> compareAndSetAsync(Key key, Optional<byte[]> expected, Optional<byte[]> newValue) {
    return router().execute(KvOps.cas(key, expected.map(KvOps::value), newValue.map(KvOps::value)), deadline());
  }

  /** Values in the order of {@code keys}: one request per range, all in parallel. */
  public CompletableFuture<List<Optional<byte[]>>> batchGetAsync(List<Key> keys) {
    return Batches.batchGet(router(), keys, deadline());
  }

  /**
   * Applies {@code ops} atomically (all or none; a failed check stops it). Every key must lie in one
   * range: otherwise the future fails with {@link CrossRangeBatchException} naming the ranges, and
   * nothing was written.
   */
  public CompletableFuture<BatchResult> atomicBatchAsync(List<BatchOp> ops) {
    if (ops.isEmpty()) {
      return CompletableFuture.failedFuture(new InvalidArgumentException("batch.empty", "an atomic batch needs ops", null));
    }
    Key lo = ops.get(0).firstKey();
    RangeEnd hi = ops.get(0).end();
    for (BatchOp op : ops) {
      lo = op.firstKey().compareTo(lo) < 0 ? op.firstKey() : lo;
      hi = op.end().compareTo(hi) > 0 ? op.end() : hi;
    }
    Key spanLo = lo;
    RangeEnd spanHi = hi;
    return router().execute(KvOps.batch(List.copyOf(ops), lo, hi), deadline()).exceptionallyCompose(e -> {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof ReplanException) {
        List<RangeDescriptor> ranges = new ArrayList<>();
        for (ScanPiece p : router().cache().current().map().scanPlan(spanLo, spanHi)) {
          ranges.add(p.range());
        }
        return CompletableFuture.failedFuture(new CrossRangeBatchException(ranges));
      }
      return CompletableFuture.failedFuture(cause);
    });
  }

  /** Deletes every key in {@code [lo, hi)}: one piece per range; each piece is atomic, the whole is not. */
  public CompletableFuture<Void> deleteRangeAsync(Key lo, RangeEnd hi) {
    return Batches.deleteRange(router(), lo, hi, deadline(), 0);
  }

  /**
   * One page of a scan (up to {@code options.pageSize()} entries, at least one unless the scan is
   * complete) and the cursor to continue from, empty when the scan is complete. For stateless paging,
   * e.g. across HTTP requests: pass the cursor back through {@link ScanOptions#withAfter}.
   */
  public CompletableFuture<ScanPageResult> scanPageAsync(Key lo, RangeEnd hi, ScanOptions options) {
    return nonEmptyPage(ScanState.start(lo, hi, options), options);
  }

  private CompletableFuture<ScanPageResult> nonEmptyPage(ScanState state, ScanOptions options) {
    if (state.done()) {
      return CompletableFuture.completedFuture(new ScanPageResult(List.of(), Optional.empty()));
    }
    return shared.scanner().page(state, options.pageSize(), deadline()).thenCompose(p -> {
      if (p.entries().isEmpty()) {
        return nonEmptyPage(p.next(), options); // an empty range: move on to the next one
      }
      Optional<ScanCursor> next = p.next().done()
          ? Optional.empty()
          : Optional.of(new ScanCursor(p.entries().get(p.entries().size() - 1).key(), options.reverse()));
      return CompletableFuture.completedFuture(new ScanPageResult(p.entries(), next));
    });
  }

  // ----------------------------------------------------------------------------------------------
  // blocking

  public Optional<byte[]> get(Key key) {
    long d = deadline();
    return Await.result(router().execute(KvOps.get(key), d), d);
  }

  public void put(Key key, byte[] value) {
    long d = deadline();
    Await.result(router().execute(KvOps.put(key, KvOps.value(value)), d), d);
  }

  public void delete(Key key) {
    long d = deadline();
    Await.result(router().execute(KvOps.delete(key), d), d);
  }

  public CasResult compareAndSet(Key key, Optional<byte[]> expected, Optional<byte[]> newValue) {
    return Await.result(compareAndSetAsync(key, expected, newValue), deadline());
  }

  public List<Optional<byte[]>> batchGet(List<Key> keys) {
    return Await.result(batchGetAsync(keys), deadline());
  }

  public BatchResult atomicBatch(List<BatchOp> ops) {
    return Await.result(atomicBatchAsync(ops), deadline());
  }

  public void deleteRange(Key lo, RangeEnd hi) {
    Await.result(deleteRangeAsync(lo, hi), deadline());
  }

  /** An ordered scan of {@code [lo, hi)} with default options, fetched lazily page by page. */
  public ScanIterator scan(Key lo, RangeEnd hi) {
    return scan(lo, hi, ScanOptions.defaults());
  }

  /** An ordered scan with a limit, direction, page size and/or a cursor to resume after. */
  public ScanIterator scan(Key lo, RangeEnd hi, ScanOptions options) {
    return new ScanIterator(shared.scanner(), ScanState.start(lo, hi, options), options.pageSize());
  }

  /**
   * A scan whose per-range pieces are fetched concurrently ({@code options.parallelism()} ahead) yet
   * yielded in key order (or reverse key order).
   */
  public ParallelScanIterator parallelScan(Key lo, RangeEnd hi, ScanOptions options) {
    ScanState whole = ScanState.start(lo, hi, options);
    List<ScanState> pieces = new ArrayList<>();
    if (!whole.done()) {
      for (ScanPiece p : router().cache().current().map().scanPlan(whole.lo(), whole.hi())) {
        pieces.add(new ScanState(p.lo(), p.hi(), options.reverse(), whole.remaining(), false));
      }
    }
    if (options.reverse()) {
      java.util.Collections.reverse(pieces);
    }
    return new ParallelScanIterator(shared.scanner(), pieces, options.parallelism(), options.pageSize(), options.limit());
  }

  // ----------------------------------------------------------------------------------------------
  // routing introspection

  /** The routing cache as it is now (immutable snapshot). */
  public RouteTable routeTable() {
    return router().cache().current();
  }

  /** The range the cache currently routes {@code key} to (a hint: nodes are the authority). */
  public RangeDescriptor rangeOf(Key key) {
    return routeTable().map().lookup(key);
  }

  /** Reloads the routing cache from its source now. */
  public void refreshRoutes() {
    Await.result(router().cache().refresh(), deadline());
  }

  /** Replaces the routing cache (tests, tools): e.g. to start from a known-stale snapshot. */
  public void installRoutes(RouteTable table) {
    router().cache().install(table);
  }

  /** Closes connections and the timer; pending calls fail. Closing any view closes the client. */
  @Override
  public void close() {
    // channels first: retries already scheduled still run (the timer is shut down gently), find the
    // channels closed and fail their calls with UnavailableException instead of hanging
    shared.watch().ifPresent(RangeWatch::close);
    shared.channels().close();
    shared.timer().shutdown();
    try {
      shared.timer().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
