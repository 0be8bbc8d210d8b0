package dev.rangekv.server.ratis;

import dev.rangekv.server.consensus.ConsensusMeters;
import dev.rangekv.server.consensus.EngineTimers;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.impl.RatisMetricRegistryImpl;
import org.apache.ratis.thirdparty.com.codahale.metrics.Metric;

/**
 * This node's Raft latencies in its Micrometer registry. Ratis times proposals, log appends, log fsyncs
 * and follower appends itself, per Raft group, in its JVM-wide Dropwizard registries; they are bridged
 * here at scrape time rather than measured twice. When another engine runs the node's ranges (the
 * multi-raft engine), its own {@link EngineTimers} (proposals, synced log writes) are merged into the same
 * meters at each reading; log appends and follower appends then count the meta range's group only. Ratis 3.3 has no apply timer, so the range state
 * machines' apply is timed here ({@link #applied}).
 *
 * <p>Cardinality is per node, whatever the number of ranges: a bridged timer merges every group of this
 * node (the registries whose member id starts with {@code nodeId@}; the meta range's group included)
 * into one count and one set of quantiles. Counts are kept monotonic across groups that close (a range
 * that moves away takes its registry with it, not its past events). Quantiles are those of the values
 * Dropwizard's exponentially-decaying reservoirs keep (about the last five minutes), merged
 * unweighted: a recent-latency view, not a whole-life histogram.
 *
 * <p>Thread-safe; a scrape reads the Ratis registries at most every 500 ms.
 */
public final class RaftMetrics implements ConsensusMeters {
  private static final java.util.concurrent.atomic.AtomicBoolean JMX_OFF = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Keeps Ratis from publishing its metrics as JMX beans; call before the JVM's first Ratis server.
   * Ratis enables its JMX reporter when the first metric registry is created and no reporter was
   * registered: every group that opens or closes then (un)registers dozens of beans under the
   * platform MBean server's one JVM-wide lock, so with hundreds of dormant ranges opening and closing,
   * group opens queued behind closes for tens of seconds and woken ranges found no leader in time
   * (ManyDormantRangesIT). This class reads the registries directly; nothing here needs JMX. Registering
   * a reporter that does nothing is Ratis' way to opt out. Idempotent.
   */
  public static void withoutJmx() {
    if (JMX_OFF.compareAndSet(false, true)) {
      MetricRegistries.global().addReporterRegistration(registry -> { }, registry -> { });
    }
  }

  /** A Ratis timer bridged as a count and quantile gauges. */
  enum Bridged {
    PROPOSAL("server", "clientWriteRequest", "rangekv.raft.proposal", "rangekv.raft.proposals",
        "Raft write requests on this node's leaders: submitted to Ratis until committed and applied"),
    LOG_APPEND("log_worker", "appendEntryLatency", "rangekv.raft.log.append", "rangekv.raft.log.appends",
        "log entries appended: handed to the Raft log until written and flushed"),
    LOG_SYNC("log_worker", "syncTime", "rangekv.raft.log.sync", "rangekv.raft.log.syncs",
        "Raft log fsyncs (one covers every entry written since the previous one)"),
    FOLLOWER_APPEND("server", "follower_append_entry_latency", "rangekv.raft.follower.append",
        "rangekv.raft.follower.appends", "appendEntries calls on this node's followers, received until flushed");

    final String component;
    final String ratisName;
    final String latencyName;
    final String countName;
    final String help;

    Bridged(String component, String ratisName, String latencyName, String countName, String help) {
      this.component = component;
      this.ratisName = ratisName;
      this.latencyName = latencyName;
      this.countName = countName;
      this.help = help;
    }
  }

  /** The timers an engine of its own (not Ratis) feeds into the same meters; the others it leaves to Ratis. */
  private static final Map<Bridged, EngineTimers.Kind> ENGINE_KINDS = Map.of(
      Bridged.PROPOSAL, EngineTimers.Kind.PROPOSAL, Bridged.LOG_SYNC, EngineTimers.Kind.LOG_SYNC);
  /** The key an engine's timers are counted under, beside the Ratis groups' member ids. */
  private static final String ENGINE = "engine";

  static final double[] QUANTILES = {0.5, 0.95, 0.99};
  private static final long READ_EVERY_NANOS = 500_000_000L;

  private final String memberPrefix;
  private final EngineTimers engine;
  private final long readEveryNanos;
  private final Timer apply;
  private final Map<Bridged, Reading> last = new EnumMap<>(Bridged.class);
  /** Per bridged timer: each live group's count at the previous reading, by member id. */
  private final Map<Bridged, Map<String, Long>> seen = new EnumMap<>(Bridged.class);
  private final Map<Bridged, Long> totals = new EnumMap<>(Bridged.class);
  private long lastReadNanos;
  private boolean read;

  /** One bridged timer at one reading: events since the node started, quantiles in seconds. */
  record Reading(long count, double[] quantiles) {}

  public RaftMetrics(String nodeId, MeterRegistry registry) {
    this(nodeId, registry, EngineTimers.NONE);
  }

  /**
   * With the timers of the engine that runs this node's ranges when that is not Ratis (the multi-raft
   * engine, which runs the meta range's group too): its proposals and synced log writes count in the same
   * meters; the log and follower appends it does not time stay at zero.
   */
  public RaftMetrics(String nodeId, MeterRegistry registry, EngineTimers engine) {
    this(nodeId, registry, READ_EVERY_NANOS, engine);
  }

  /** {@code readEveryNanos}: how long one reading of Ratis' registries serves scrapes (0: every time). */
  RaftMetrics(String nodeId, MeterRegistry registry, long readEveryNanos) {
    this(nodeId, registry, readEveryNanos, EngineTimers.NONE);
  }

  RaftMetrics(String nodeId, MeterRegistry registry, long readEveryNanos, EngineTimers engine) {
    this.memberPrefix = nodeId + "@";
    this.engine = engine;
    this.readEveryNanos = readEveryNanos;
    this.apply = Timer.builder("rangekv.raft.apply")
        .description("Raft entries applied by this node's range replicas (one entry may carry many writes)")
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(10_000))
        .maximumExpectedValue(Duration.ofSeconds(10))
        .register(registry);
    for (Bridged b : Bridged.values()) {
      seen.put(b, new HashMap<>());
      totals.put(b, 0L);
      last.put(b, new Reading(0, new double[QUANTILES.length]));
      FunctionCounter.builder(b.countName, this, m -> m.reading(b).count())
          .description(b.help).register(registry);
      for (int i = 0; i < QUANTILES.length; i++) {
        int q = i;
        Gauge.builder(b.latencyName, this, m -> m.reading(b).quantiles()[q])
            .description(b.help + ": recent latency quantiles over every group of this node")
            .baseUnit("seconds")
            .tag("quantile", Double.toString(QUANTILES[i]))
            .register(registry);
      }
    }
  }

  /** Records one applied entry that took {@code nanos}. */
  @Override
  public void applied(long nanos) {
    apply.record(nanos, TimeUnit.NANOSECONDS);
  }

  private synchronized Reading reading(Bridged b) {
    long now = System.nanoTime();
    if (!read || now - lastReadNanos >= readEveryNanos) {
      readAll();
      lastReadNanos = now;
      read = true;
    }
    return last.get(b);
  }

  private void readAll() {
    Map<Bridged, List<long[]>> values = new EnumMap<>(Bridged.class);
    Map<Bridged, Map<String, Long>> counts = new EnumMap<>(Bridged.class);
    for (Bridged b : Bridged.values()) {
      values.put(b, new ArrayList<>());
      counts.put(b, new HashMap<>());
    }
    for (RatisMetricRegistry r : MetricRegistries.global().getMetricRegistries()) {
      MetricRegistryInfo info = r.getMetricRegistryInfo();
      if (!(r instanceof RatisMetricRegistryImpl impl) || !info.getPrefix().startsWith(memberPrefix)) {
        continue; // another node of this JVM, or not Ratis' default (Dropwizard) implementation
      }
      for (Bridged b : Bridged.values()) {
        if (!b.component.equals(info.getMetricsComponentName())) {
          continue;
        }
        Metric m = impl.get(b.ratisName);
        if (m instanceof org.apache.ratis.thirdparty.com.codahale.metrics.Timer t) {
          counts.get(b).merge(info.getPrefix(), t.getCount(), Long::sum);
          values.get(b).add(t.getSnapshot().getValues());
        }
      }
    }
    ENGINE_KINDS.forEach((b, kind) -> {
      EngineTimers.Reading r = engine.read(kind);
      if (r.count() > 0) {
        counts.get(b).put(ENGINE, r.count());
        values.get(b).add(r.recentNanos());
      }
    });
    for (Bridged b : Bridged.values()) {
      last.put(b, new Reading(advance(b, counts.get(b)), quantiles(values.get(b))));
    }
  }

  /** Adds what each group counted since the previous reading; a group seen anew, or reset, adds all it has. */
  private long advance(Bridged b, Map<String, Long> now) {
    Map<String, Long> before = seen.get(b);
    long total = totals.get(b);
    for (Map.Entry<String, Long> e : now.entrySet()) {
      long previous = before.getOrDefault(e.getKey(), 0L);
      total += e.getValue() >= previous ? e.getValue() - previous : e.getValue();
    }
    Set<String> gone = new HashSet<>(before.keySet());
    gone.removeAll(now.keySet());
    before.keySet().removeAll(gone);
    before.putAll(now);
    totals.put(b, total);
    return total;
  }

  /** Quantiles in seconds of the merged nanosecond values; zeros when there are none. */
  static double[] quantiles(List<long[]> parts) {
    int n = 0;
    for (long[] p : parts) {
      n += p.length;
    }
    double[] out = new double[QUANTILES.length];
    if (n == 0) {
      return out;
    }
    long[] all = new long[n];
    int at = 0;
    for (long[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    Arrays.sort(all);
    for (int i = 0; i < QUANTILES.length; i++) {
      int rank = (int) Math.ceil(QUANTILES[i] * n) - 1;
      out[i] = all[Math.max(0, Math.min(n - 1, rank))] / 1e9;
    }
    return out;
  }
}
