package dev.rangekv.server.observe;

import dev.rangekv.server.consensus.ConsensusMeters;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreException;
import dev.rangekv.storage.StoreStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

/**
 * One node's meters in its own Prometheus registry (nodes of an in-JVM cluster do not share one): JVM
 * and process meters, the store's engine counters, replicas and leaders held, per-range load of the
 * ranges it leads ({@link RangeLoadGauges}), Raft latencies (the engine's {@link ConsensusMeters}) and, on the meta leader,
 * the controller's counters.
 * Thread-safe; {@link #close} stops the GC listener.
 */
public final class NodeMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final RangeLoadGauges ranges;
  private final ConsensusMeters raft;
  private volatile StoreStats lastStore = new StoreStats(0, 0, 0, 0, 0, 0);
  private volatile long lastStoreNanos;
  /** Held here: a function counter references what it reads weakly. */
  private volatile java.util.function.Supplier<dev.rangekv.server.multiraft.RuntimeFigures> multiRaftFigures;

  /** What the node's gauges read, sampled at scrape time. */
  public interface Source {
    int replicas();

    int leaders();
  }

  public NodeMetrics(String nodeId, NodeStore store, Source source,
      java.util.function.Function<MeterRegistry, ConsensusMeters> raftMeters) {
    registry.config().commonTags("node", nodeId);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    gauge("rangekv.replicas", "range replicas this node holds", source::replicas);
    gauge("rangekv.leaders", "ranges this node leads", source::leaders);
    storeGauge(store, "rangekv.store.memtable.bytes", "bytes in the store's memtables", StoreStats::memtableBytes);
    storeGauge(store, "rangekv.store.sst.bytes", "bytes of the store's live SST files", StoreStats::sstBytes);
    storeGauge(store, "rangekv.store.pending.compaction.bytes", "bytes compaction still has to rewrite",
        StoreStats::pendingCompactionBytes);
    storeGauge(store, "rangekv.store.estimated.keys", "keys in the data column family (estimate)",
        StoreStats::estimatedKeys);
    storeGauge(store, "rangekv.store.block.cache.hit.ratio", "block cache hits over lookups since the store opened",
        StoreStats::blockCacheHitRatio);
    this.ranges = new RangeLoadGauges(registry, RangeLoadGauges.DEFAULT_CAP);
    this.raft = raftMeters.apply(registry);
  }

  private void gauge(String name, String help, IntSupplier value) {
    Gauge.builder(name, value, IntSupplier::getAsInt).description(help).strongReference(true).register(registry);
  }

  private void storeGauge(NodeStore store, String name, String help, ToDoubleFunction<StoreStats> f) {
    Gauge.builder(name, store, s -> f.applyAsDouble(storeStats(s))).description(help).register(registry);
  }

  /** One reading of the store per scrape (five gauges share it); the last reading once the store closed. */
  private StoreStats storeStats(NodeStore store) {
    long now = System.nanoTime();
    if (now - lastStoreNanos > 500_000_000L) {
      try {
        lastStore = store.stats();
        lastStoreNanos = now;
      } catch (StoreException e) {
        // the node is stopping: its store is closed; keep the last reading
      }
    }
    return lastStore;
  }

  /**
   * The multi-raft runtime's counters ({@code rangekv.multiraft.*}), read at scrape time from
   * {@code figures}; their rates over the write rate give cycles, syncs and messages per write.
   */
  public void bindMultiRaft(java.util.function.Supplier<dev.rangekv.server.multiraft.RuntimeFigures> figures) {
    this.multiRaftFigures = figures;
    runtimeCounter(figures, "cycles", "stripe cycles run", f -> f.cycles());
    runtimeCounter(figures, "syncs", "synced Raft log writes", f -> f.syncs());
    runtimeCounter(figures, "envelopes", "envelopes sent to peer nodes", f -> f.envelopes());
    runtimeCounter(figures, "messages", "Raft messages sent to peer nodes", f -> f.messages());
    runtimeCounter(figures, "tasks", "stripe tasks run", f -> f.tasks());
    runtimeCounter(figures, "wakeups", "parked stripes woken by another thread", f -> f.wakeups());
    runtimeCounter(figures, "appended", "Raft log entries appended", f -> f.appended());
  }

  private void runtimeCounter(java.util.function.Supplier<dev.rangekv.server.multiraft.RuntimeFigures> figures,
      String name, String help, java.util.function.ToLongFunction<dev.rangekv.server.multiraft.RuntimeFigures> f) {
    io.micrometer.core.instrument.FunctionCounter.builder("rangekv.multiraft." + name, figures,
        s -> f.applyAsLong(s.get())).description(help).register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Per-range load gauges, updated from each heartbeat this node builds. */
  public RangeLoadGauges ranges() {
    return ranges;
  }

  /** Raft proposal, apply and log latencies (the engine's own timers, plus the apply timer). */
  public ConsensusMeters raft() {
    return raft;
  }

  /**
   * The Prometheus text exposition of every meter. Taken while the per-range rows hold still: Micrometer
   * (through 1.17) replaces a MultiGauge's rows by removing and re-adding them, and a scrape in between
   * printed one series twice (micrometer-metrics/micrometer#6851).
   */
  public String scrape() {
    return ranges.whileRowsHoldStill(registry::scrape);
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
