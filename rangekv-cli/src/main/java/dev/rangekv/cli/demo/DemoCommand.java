package dev.rangekv.cli.demo;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.cli.format.DurationText;
import dev.rangekv.cli.format.Table;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.server.node.LocalCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code rangekv demo}: starts a cluster inside this JVM under a temporary directory with small
 * thresholds, runs seed 000's order-events workload keyed by time (phase 1), by order id (phase 2) and
 * by (bucket, time) (phase 3), prints a live line per tick and the controller's events, asks each
 * design for the last minute of events, and ends with a summary comparing the three and what to try
 * next. Ctrl-C stops it cleanly; the directory is removed unless {@code --keep-data}.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run a cluster in this JVM and watch range sharding work: a monotonic key (the trap), then a spread"
        + " key. --offline prints the map-only hotspot table instead.")
public final class DemoCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--duration", defaultValue = "90s", converter = DurationText.class,
      description = "total run time, split evenly between the three phases; phase 1 may run on, see --alert-wait"
          + " (default ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--nodes", defaultValue = "4", description = "nodes in the cluster (1-7, default ${DEFAULT-VALUE})")
  int nodes;

  @Option(names = "--writers", defaultValue = "256",
      description = "writes in flight: asynchronous puts not yet acknowledged (1-4096, default ${DEFAULT-VALUE})")
  int writerCount;

  @Option(names = "--interval", defaultValue = "1s", converter = DurationText.class,
      description = "time between live lines (default ${DEFAULT-VALUE})")
  Duration interval;

  @Option(names = "--alert-wait", defaultValue = "30s", converter = DurationText.class,
      description = "phase 1 runs on past its share until the monotonic-key alert shows, for at most this long"
          + " (0s: never; default ${DEFAULT-VALUE})")
  Duration alertWait;

  @Option(names = "--keep-data", description = "keep the cluster's directory (printed at the end)")
  boolean keepData;

  @Option(names = "--offline", description = "no cluster: print where consecutive ids land in a pre-split map")
  boolean offline;

  @Option(names = "--ranges", defaultValue = "16", description = "--offline: ranges pre-split uniformly (default ${DEFAULT-VALUE})")
  int ranges;

  @Option(names = "--ids", defaultValue = "100000", description = "--offline: consecutive ids written (default ${DEFAULT-VALUE})")
  int ids;

  @Option(names = "--first-id", defaultValue = "1000000", description = "--offline: first id (default ${DEFAULT-VALUE})")
  long firstId;

  private volatile boolean interrupted;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (offline) {
      try {
        new OfflineHotspot(ranges, ids, firstId).print(out);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
      }
      return 0;
    }
    validate();
    ControllerConfig controller = DemoSettings.controller(interval);
    Path dir = Files.createTempDirectory("rangekv-demo-");
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      interrupted = true; // Ctrl-C: the main thread stops the workload and cleans up; wait for it
      try {
        finished.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "rangekv-demo-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      run(out, dir, controller);
    } finally {
      try {
        if (!keepData) {
          deleteTree(dir);
        } else {
          out.println("data kept in " + dir);
        }
      } finally {
        out.flush();
        finished.countDown();
        removeHook(hook);
      }
    }
    return 0;
  }

  private void run(PrintWriter out, Path dir, ControllerConfig controller) throws Exception {
    out.printf("RangeKV demo: %d nodes in this JVM under %s; range.max-bytes %s, split.qps %.0f, controller tick %s."
            + " Insecure: plaintext on loopback, no certificates (a demo only; see 'Secure cluster' in the README)."
            + " Ctrl-C stops it.%n", nodes, dir, Table.bytes(controller.maxBytes()), controller.splitQps(),
        DurationText.format(Duration.ofMillis(controller.tickMillis())));
    out.flush();
    try (LocalCluster cluster = LocalCluster.start(nodes, dir, DemoSettings.tuning(), controller)) {
      out.println("console: http://" + cluster.node(0).httpAddress().orElseThrow() + "/ui/ (metrics at /metrics)");
      out.flush();
      List<String> addresses = new ArrayList<>();
      List<String> nodeIds = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        addresses.add(cluster.config(i).clientAddress());
        nodeIds.add(cluster.config(i).nodeId());
      }
      out.println("cluster: " + String.join(",", addresses) + "  (from another shell while it runs: rangekv ranges --cluster "
          + addresses.get(0) + ")");
      out.flush();
      try (RangeKvClient client = RangeKvClient.connect(addresses, ClientOptions.defaults());
           MetaCalls meta = new MetaCalls(addresses, Duration.ofSeconds(5))) {
        Writers writers = new Writers(client, writerCount);
        Monitor monitor = new Monitor(meta, writers, out, nodeIds);
        // one write first: the clock starts once the ranges have leaders, not during the first elections
        client.withTimeout(Duration.ofSeconds(30)).put(Phase.BY_ORDER.key(0, "warm-up", 0), new byte[1]);
        monitor.skipEarlierEvents();
        List<PhaseStats> phases = new ArrayList<>();
        Map<Phase, PhaseStats> byPhase = new EnumMap<>(Phase.class);
        writers.start();
        try {
          for (Phase phase : Phase.values()) {
            if (interrupted) {
              break;
            }
            writers.phase(phase);
            writers.drainWindow(); // the previous phase's last writes do not count here
            out.println();
            out.println("== " + phase.title() + " ==");
            PhaseStats stats = new PhaseStats(phase);
            phases.add(stats);
            byPhase.put(phase, stats);
            Duration share = duration.dividedBy(Phase.values().length);
            runPhase(monitor, stats, byPhase, share);
            if (phase == Phase.BY_TIME && stats.count(PhaseStats.MONOTONIC_ALERT) == 0 && !alertWait.isZero()
                && !interrupted) {
              // phase 1 exists to show the trap: on a loaded box the tail splits later and the detector's
              // window fills later, so the phase waits (bounded) for the alert rather than end without it
              out.println("(no monotonic-key alert yet: phase 1 runs on until it shows, at most "
                  + DurationText.format(alertWait) + ")");
              runPhase(monitor, stats, byPhase, alertWait, share, () -> stats.count(PhaseStats.MONOTONIC_ALERT) > 0);
            }
            stats.ended(System.currentTimeMillis());
          }
        } finally {
          writers.stop();
        }
        List<LastMinute> queries = lastMinute(out, client, phases);
        if (writers.errors() > 0) {
          out.println("failed writes: " + writers.errors() + " (last: " + writers.lastError() + ")");
        }
        Summary.print(out, phases, queries, new Summary.Setup(nodes, writerCount, interval.toMillis() / 1000.0,
            Runtime.getRuntime().availableProcessors()));
        Summary.tryNext(out, "http://" + cluster.node(0).httpAddress().orElseThrow() + "/ui/", addresses.get(0));
      }
    } catch (IOException e) {
      throw new CliException("the demo cluster did not start: " + e.getMessage(), e);
    }
  }

  private void runPhase(Monitor monitor, PhaseStats stats, Map<Phase, PhaseStats> byPhase, Duration length)
      throws InterruptedException {
    runPhase(monitor, stats, byPhase, length, Duration.ZERO, () -> false);
  }

  /**
   * Ticks the monitor for {@code length} or until {@code done} after a tick; {@code offset} is how far
   * into the phase this stretch starts (for the live line's clock).
   */
  private void runPhase(Monitor monitor, PhaseStats stats, Map<Phase, PhaseStats> byPhase, Duration length,
      Duration offset, BooleanSupplier done) throws InterruptedException {
    long start = System.nanoTime();
    long end = start + length.toNanos();
    long next = start;
    while (!interrupted && System.nanoTime() < end && !done.getAsBoolean()) {
      next += interval.toNanos();
      long wait = Math.min(next, end) - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait); // the live line's cadence: this loop only prints
      }
      double tick = (System.nanoTime() - (next - interval.toNanos())) / 1e9;
      monitor.tick(stats, byPhase, Math.max(tick, 0.001), (System.nanoTime() - start + offset.toNanos()) / 1e9);
    }
  }

  /** Each design asked for the last minute of its events (up to its phase's end), writers stopped. */
  private List<LastMinute> lastMinute(PrintWriter out, RangeKvClient client, List<PhaseStats> phases) {
    List<LastMinute> answers = new ArrayList<>();
    if (interrupted) {
      return answers;
    }
    out.println();
    out.println("== the last minute of events, asked of each design ==");
    for (PhaseStats p : phases) {
      try {
        LastMinute q = LastMinute.ask(client.withTimeout(Duration.ofSeconds(60)), p.phase(), p.endedMillis() - 60_000,
            p.endedMillis());
        answers.add(q);
        out.println(Summary.queryLine(q));
      } catch (RangeKvException e) {
        out.println(p.phase().shortName() + ": the query failed: " + e.code() + ": " + e.getMessage());
      }
      out.flush();
    }
    return answers;
  }

  private void validate() {
    if (nodes < 1 || nodes > 7) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be in [1, 7], got " + nodes);
    }
    if (writerCount < 1 || writerCount > 4096) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--writers must be in [1, 4096], got " + writerCount);
    }
    if (interval.toMillis() < 200 || duration.compareTo(interval.multipliedBy(2)) < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--interval must be at least 200ms and --duration at least two intervals");
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down (Ctrl-C): the hook is running and waits for us, which is done
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
