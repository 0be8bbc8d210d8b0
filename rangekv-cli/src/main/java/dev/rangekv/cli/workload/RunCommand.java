package dev.rangekv.cli.workload;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.cli.cluster.Unreachable;
import dev.rangekv.cli.format.DurationText;
import dev.rangekv.cli.format.Json;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rangekv workload run WORKLOAD}: optionally loads keys, then runs each phase (warm-up, then the
 * measured window), printing a live line per second and a summary per phase; {@code --json} prints one
 * JSON document on stdout (live lines and summaries then go to stderr).
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = {"Run a workload against a cluster: kv (phases insert,update,read,scan10 by default) or ycsb "
        + "(ycsb-a..ycsb-f on zipfian keys after loading --load keys, 10000 by default).",
        "CPU per operation counts the WHOLE MACHINE (every process, /proc/stat) over each measured window: "
            + "meaningful when the nodes run on this machine."})
public final class RunCommand implements Callable<Integer> {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  dev.rangekv.cli.cluster.TlsOptions tls;

  @Parameters(index = "0", paramLabel = "WORKLOAD", description = "kv or ycsb")
  String workload;

  @Option(names = "--phases", paramLabel = "LIST",
      description = "comma-separated phases: " + PhaseSpec.KNOWN + " (default: the workload's)")
  String phases;

  @Option(names = "--threads", defaultValue = "32", description = "closed-loop clients (default ${DEFAULT-VALUE})")
  int threads;

  @Option(names = "--in-flight", defaultValue = "1",
      description = "operations each client keeps in flight (default ${DEFAULT-VALUE})")
  int inFlight;

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "60s", converter = DurationText.class,
      description = "measured time per phase (default ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "0s", converter = DurationText.class,
      description = "time per phase run but not counted, before the measured window (default ${DEFAULT-VALUE})")
  Duration warmup;

  @Option(names = "--value-bytes", defaultValue = "100", description = "bytes per written value (default ${DEFAULT-VALUE})")
  int valueBytes;

  @Option(names = "--load", paramLabel = "N",
      description = "insert keys user0000000000.. up to N before the phases (default: kv 0, ycsb 10000)")
  Long load;

  @Option(names = "--seed", description = "seed of the key and value choices (default: random)")
  Long seed;

  @Option(names = {"--cluster", "--seeds", "--join"}, paramLabel = "HOST:PORT[,HOST:PORT]",
      defaultValue = "${env:RANGEKV_CLUSTER:-127.0.0.1:7001}",
      description = "client addresses of one or more nodes (default: $RANGEKV_CLUSTER or 127.0.0.1:7001)")
  String cluster;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s", converter = DurationText.class,
      description = "deadline of each operation, retries included (default ${DEFAULT-VALUE})")
  Duration timeout;

  @Option(names = "--json", description = "print one JSON document for scripts on stdout")
  boolean json;

  @Override
  public Integer call() throws InterruptedException {
    List<PhaseSpec> list;
    long preload;
    List<String> seeds;
    try {
      String names = phases != null ? phases : Workloads.defaultPhases(workload);
      list = PhaseSpec.parseList(names);
      preload = Workloads.defaultLoad(workload, Optional.ofNullable(load));
      check(threads >= 1, "--threads must be at least 1, got " + threads);
      check(inFlight >= 1, "--in-flight must be at least 1, got " + inFlight);
      check(!duration.isZero(), "--duration must be more than 0");
      check(valueBytes >= 0, "--value-bytes must be >= 0, got " + valueBytes);
      check(preload >= 0, "--load must be >= 0, got " + preload);
      check(preload < 10_000_000_000L, "--load must stay within the 10-digit key names, got " + preload);
      check(!timeout.isZero(), "--timeout must be more than 0");
      Workloads.missingKeys(list, preload).ifPresent(m -> check(false, m));
      seeds = addresses(cluster);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    long seedValue = seed != null ? seed : new SplittableRandom().nextLong();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter live = json ? spec.commandLine().getErr() : out;
    PhaseRunner.Settings settings = new PhaseRunner.Settings(threads, inFlight, warmup, duration, timeout, seedValue);
    int slots = threads * inFlight;
    ExecutorService executor = Executors.newFixedThreadPool(Math.min(4, slots), daemonThreads());
    try (RangeKvClient client = connect(seeds)) {
      PhaseRunner runner = new PhaseRunner(new Operations(client.withTimeout(timeout), valueBytes), executor,
          settings, live);
      KeySpace keys = new KeySpace(0);
      Map<String, Object> doc = header(seeds, seedValue, preload);
      if (preload > 0) {
        PhaseResult loaded = runner.load(keys, preload);
        SummaryFormat.text(loaded).forEach(live::println);
        doc.put("load", SummaryFormat.json(loaded));
      }
      List<Object> results = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        PhaseResult r = runner.run(list.get(i), keys, i);
        SummaryFormat.text(r).forEach(live::println);
        live.flush();
        results.add(SummaryFormat.json(r));
      }
      doc.put("phases", results);
      if (json) {
        out.println(Json.write(doc));
      }
      out.flush();
      live.flush();
      return 0;
    } finally {
      executor.shutdownNow();
    }
  }

  private Map<String, Object> header(List<String> seeds, long seedValue, long preload) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("workload", workload);
    doc.put("cluster", seeds);
    doc.put("threads", threads);
    doc.put("inFlight", inFlight);
    doc.put("warmupSeconds", warmup.toMillis() / 1000.0);
    doc.put("durationSeconds", duration.toMillis() / 1000.0);
    doc.put("valueBytes", valueBytes);
    doc.put("loadKeys", preload);
    doc.put("seed", seedValue);
    doc.put("cpuScope", SummaryFormat.CPU_SCOPE);
    return doc;
  }

  private RangeKvClient connect(List<String> seeds) {
    ClientOptions options = KvSession.connectOptions(timeout);
    try {
      return RangeKvClient.connect(seeds, tls.files().map(options::withTls).orElse(options));
    } catch (RangeKvException e) {
      throw new CliException("cannot reach the cluster at " + String.join(",", seeds) + " (" + e.code() + ": "
          + Unreachable.describe(e, tls.files().isEmpty() ? seeds : List.of()) + ")", e);
    }
  }

  private static void check(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** The seed addresses, trimmed; each must be HOST:PORT (as ClusterOptions checks --cluster). */
  static List<String> addresses(String text) {
    List<String> list = Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    check(!list.isEmpty(), "--cluster names no address");
    for (String a : list) {
      int colon = a.lastIndexOf(':');
      check(colon > 0 && a.substring(colon + 1).matches("\\d{1,5}"), "--cluster address '" + a + "' is not HOST:PORT");
    }
    return list;
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "rangekv-workload-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
