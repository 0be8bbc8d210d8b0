package dev.rangekv.cli.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.clock.ClockControl;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Seed;
import dev.rangekv.testkit.history.CounterModel;
import dev.rangekv.testkit.history.FaultLog;
import dev.rangekv.testkit.history.RegisterModel;
import dev.rangekv.testkit.history.Violation;
import dev.rangekv.testkit.linearizability.Anomaly;
import dev.rangekv.testkit.linearizability.Linearizability;
import dev.rangekv.testkit.linearizability.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault run, in the spirit of Jepsen and CockroachDB's kvnemesis: four {@code rangekv start}
 * processes, each in a network namespace of its own ({@link NetNamespaces}; the test's clients stay in
 * the root namespace); writers with unique values, range deletes, live reads and scans, and CAS
 * counters, all checked against models; a {@link Nemesis} that kills (-9) and restarts nodes, pauses
 * them, kills the meta leader, kills two replicas of one range in turn, splits, merges and moves, and
 * partitions the network ({@link NetFaults}: majority/minority, the meta leader or a range's leader
 * isolated, a bridge, one-way loss, packet loss, a slow link, and a range leader isolated while its
 * Raft clock jumps, {@link ClockControl}).
 * At the end: every acknowledged write reads back (or a later ambiguous one), no definitely-failed
 * write is visible, counters lie within their acknowledged and ambiguous increments, full scans in
 * both directions and several page sizes agree with the reads, and the history of the clients sharing
 * a few keys is linearizable, key by key ({@link Linearizability}). No operation may fail outside a fault
 * window: routine leadership changes cost latency, never an error (README, "Use from Java").
 *
 * <p>Prints its seed; {@code -Drangekv.seed=N} replays the same workload and fault choices (the
 * interleaving with real processes differs). The run lasts 120 s by default (about one round of every
 * fault kind), short enough for every {@code mvn verify}; {@code -Drangekv.nemesis.duration=600}
 * (seconds, or {@code 10m}) runs longer. It needs root, iproute2 and nftables (installed if missing) and
 * fails saying what is missing otherwise.
 * Node logs stay in {@code target/nemesis-logs/seed-N/}.
 */
class NemesisProcessIT {
  private static final int NODES = 4;
  private static final int WRITERS = 4;
  private static final int COUNTERS = 3;
  private static final int INCREMENTERS = 2;
  private static final int SHARERS = 3;
  private static final Duration STEP = Duration.ofSeconds(120);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);
  /** Long enough for about one round of every fault kind; CI runs this on every verify. */
  private static final Duration DEFAULT_DURATION = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  @Timeout(value = 40, unit = TimeUnit.MINUTES) // a 600 s run plus start-up and the final check fits
  void underKillsPausesAndRangeChanges_noAcknowledgedWriteIsLost_andNoOperationFailsOutsideAFault()
      throws Exception {
    long seed = Seed.of("nemesis");
    long seconds = duration(System.getProperty("rangekv.nemesis.duration", "")).toSeconds();
    System.out.println("nemesis: seconds=" + seconds);
    Path logs = Path.of("target", "nemesis-logs", "seed-" + seed);
    long origin = System.nanoTime();
    FaultLog faults = new FaultLog(CLIENT_TIMEOUT.plusSeconds(2).toNanos());
    List<String> ids = NodeProcesses.ids(NODES);
    Map<String, ClockControl> clocks = new TreeMap<>();
    for (String id : ids) {
      clocks.put(id, ClockControl.in(dir.resolve("clocks"), id));
    }
    // closed in reverse: the nodes die before their namespaces go
    try (NetNamespaces net = NetNamespaces.create(ids);
        NodeProcesses nodes = new NodeProcesses(dir, logs, ids, List.of("controller.tick=1000",
            "node.dead-timeout=6000"), Optional.of(net), id -> List.of(clocks.get(id).jvmOption()))) {
      try {
        run(seed, seconds, origin, faults, nodes, net, clocks, logs);
      } catch (Exception | Error e) {
        System.out.println("nemesis: the run failed: " + e + "\nnode states:\n" + nodes.diagnose()
            + "failures per fault kind: " + faults.failuresByKind() + "; outside samples: " + faults.outsideSamples());
        throw e;
      }
    }
  }

  private static void run(long seed, long seconds, long origin, FaultLog faults, NodeProcesses nodes,
      NetNamespaces net, Map<String, ClockControl> clocks, Path logs) throws Exception {
    formCluster(nodes);
    ClientOptions options = ClientOptions.defaults().withTimeout(CLIENT_TIMEOUT);
    try (RangeKvClient client = RangeKvClient.connect(nodes.addresses(), options)) {
      Workload workload = new Workload(client, faults, origin, WRITERS, COUNTERS);
      Nemesis nemesis = new Nemesis(nodes, Optional.of(net), clocks, faults, origin, seed);
      AtomicReference<Throwable> nemesisError = new AtomicReference<>();
      Thread injector = new Thread(() -> {
        try {
          nemesis.run();
        } catch (Throwable t) {
          nemesisError.set(t);
        }
      }, "nemesis");
      injector.setDaemon(true);
      long runStart = System.nanoTime() - origin;
      workload.start(seed, INCREMENTERS, SHARERS);
      injector.start();
      TimeUnit.SECONDS.sleep(seconds); // the run's length: the workload and the nemesis work meanwhile
      nemesis.stop();
      injector.join(TimeUnit.MINUTES.toMillis(8)); // the last fault heals (a kill-two restarts two nodes)
      workload.stop();
      long runEnd = System.nanoTime() - origin;
      assertThat(injector.isAlive()).as("the nemesis did not finish healing its last fault").isFalse();
      if (nemesisError.get() != null) {
        throw new AssertionError("the nemesis failed: " + nemesisError.get(), nemesisError.get());
      }
      nemesis.awaitAllLive();

      FinalCheck check = finalCheck(client, workload);
      long checkStart = System.nanoTime();
      check.linearizability = Linearizability.check(workload.shared.operations());
      check.linearizabilityMillis = (System.nanoTime() - checkStart) / 1_000_000;
      for (Anomaly anomaly : check.linearizability.anomalies()) {
        // the whole history of a failing key, one operation a line, beside the node logs
        Files.createDirectories(logs);
        Files.write(logs.resolve("history-" + anomaly.key().replace('/', '_') + ".txt"),
            workload.shared.operations().stream().filter(o -> o.key().equals(anomaly.key()))
                .sorted(Comparator.comparingLong(Operation::invoke)).map(Object::toString).toList());
      }
      String summary = summary(seed, seconds, runEnd - runStart, workload, faults, nemesis, check);
      System.out.println(summary);

      assertThat(workload.unexpected).as("unexpected errors in workload threads").isEmpty();
      assertThat(check.lost).as("acknowledged writes lost\n" + summary).isZero();
      assertThat(workload.liveViolations).as("live reads and scans\n" + summary).isEmpty();
      assertThat(check.violations).as("final state\n" + summary).isEmpty();
      assertThat(check.linearizability.anomalies()).as("linearizability of the shared keys\n" + summary).isEmpty();
      assertThat(faults.failuresByKind().get(FaultLog.OUTSIDE))
          .as("operations failing outside every fault window: " + faults.outsideSamples() + "\n" + summary).isZero();
    }
  }

  /** The run's length: {@code -Drangekv.nemesis.duration} in seconds ({@code 600}, {@code 600s}) or minutes ({@code 10m}). */
  static Duration duration(String property) {
    String s = property.trim().toLowerCase(java.util.Locale.ROOT);
    if (s.isEmpty() || s.startsWith("${")) {
      return DEFAULT_DURATION;
    }
    if (s.endsWith("m")) {
      return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
    }
    return Duration.ofSeconds(Long.parseLong(s.endsWith("s") ? s.substring(0, s.length() - 1) : s));
  }

  /** n1 bootstraps, takes a first write, the others join; waits for replication and pre-splits per writer. */
  private static void formCluster(NodeProcesses nodes) throws Exception {
    List<String> ids = nodes.ids();
    nodes.start(ids.get(0), List.of());
    nodes.awaitLog(ids.get(0), "bootstrapped a new cluster", STEP);
    String first = nodes.addresses().get(0);
    // a range never written cannot get replicas yet (see ClusterProcessesIT): write before joining
    CliRun.ok(CliRun.of("put", "seed", "1", "--cluster", first));
    // the others start together (as an operator starts them), so their JVM start-ups overlap
    for (String id : ids.subList(1, ids.size())) {
      nodes.start(id, List.of(first));
    }
    for (String id : ids.subList(1, ids.size())) {
      nodes.awaitLog(id, "joined the cluster", STEP);
    }
    CliRun.await(STEP, r -> r.out().contains(ids.size() + " nodes, " + ids.size() + " live")
        && r.out().matches("(?s).*meta voters n\\d+,n\\d+,n\\d+.*"),
        "every node live", "nodes", "--cluster", nodes.cluster());
    for (int w = 1; w < WRITERS; w++) {
      CliRun.ok(CliRun.of("split", "--at", Workload.writerLo(w), "--cluster", nodes.cluster()));
    }
    CliRun.ok(CliRun.of("split", "--at", "c/", "--cluster", nodes.cluster()));
    CliRun.ok(CliRun.of("split", "--at", "s/", "--cluster", nodes.cluster()));
    CliRun.await(STEP, r -> r.exit() == 0 && !Nemesis.parseRanges(r.out()).isEmpty()
        && Nemesis.parseRanges(r.out()).values().stream().allMatch(reps -> reps.size() == 3),
        "every range on 3 nodes", "ranges", "--json", "--cluster", nodes.cluster());
  }

  /** What the final reads and scans found. */
  static final class FinalCheck {
    final List<Violation> violations = new ArrayList<>();
    long lost;
    long keysChecked;
    long scans;
    final Map<String, Long> counterValues = new TreeMap<>();
    Linearizability.Report linearizability;
    long linearizabilityMillis;
  }

  private static FinalCheck finalCheck(RangeKvClient client, Workload workload) throws Exception {
    FinalCheck check = new FinalCheck();
    RangeKvClient patient = client.withTimeout(Duration.ofSeconds(30));
    Map<String, String> reads = new TreeMap<>();
    for (int w = 0; w < WRITERS; w++) {
      RegisterModel model = workload.writers.get(w);
      for (int k = 0; k < Workload.KEYS_PER_WRITER; k++) {
        String key = Workload.writerKey(w, k);
        Optional<String> v = retrying(() -> patient.get(Key.utf8(key))).map(Workload::text);
        v.ifPresent(s -> reads.put(key, s));
        model.read(key, v).ifPresent(check.violations::add);
        check.keysChecked++;
      }
    }
    // full scans of every writer's keys, both directions, several page sizes: exactly what the reads saw
    for (boolean reverse : new boolean[] {false, true}) {
      for (int pageSize : new int[] {1, 7, 100, 1000}) {
        List<Map.Entry<String, String>> got = retrying(() -> Workload.scan(patient, "w", "x", reverse, pageSize));
        List<Map.Entry<String, String>> want = new ArrayList<>(reads.entrySet());
        if (reverse) {
          java.util.Collections.reverse(want);
        }
        if (!got.equals(want)) {
          check.violations.add(new Violation(Violation.Kind.SCAN_ORDER, "w..x",
              "scan reverse=" + reverse + " pageSize=" + pageSize + " returned " + got.size() + " entries, reads saw "
                  + want.size() + "; first difference at " + firstDifference(got, want)));
        }
        check.scans++;
      }
    }
    for (int c = 0; c < COUNTERS; c++) {
      String key = Workload.counterKey(c);
      CounterModel model = workload.counters.get(c);
      long value = retrying(() -> patient.get(Key.utf8(key))).map(b -> Long.parseLong(Workload.text(b))).orElse(0L);
      check.counterValues.put(key, value);
      model.check(value).ifPresent(check.violations::add);
    }
    check.lost = check.violations.stream().filter(v -> v.kind() == Violation.Kind.LOST).count();
    return check;
  }

  private static int firstDifference(List<Map.Entry<String, String>> a, List<Map.Entry<String, String>> b) {
    int i = 0;
    while (i < a.size() && i < b.size() && a.get(i).equals(b.get(i))) {
      i++;
    }
    return i;
  }

  private interface Call<T> {
    T call();
  }

  /** The final check runs on a healed cluster; a call still failing after 3 tries fails the test. */
  private static <T> T retrying(Call<T> call) {
    for (int i = 1; ; i++) {
      try {
        return call.call();
      } catch (RangeKvException e) {
        if (i == 3) {
          throw e;
        }
      }
    }
  }

  private static String summary(long seed, long seconds, long runNanos, Workload w, FaultLog faults, Nemesis nemesis,
      FinalCheck check) {
    StringBuilder s = new StringBuilder();
    s.append("==== nemesis summary: seed=").append(seed).append(" seconds=").append(seconds)
        .append(String.format(" (ran %.1f s)%n", runNanos / 1e9));
    s.append(String.format("operations=%d acknowledged=%d ambiguous=%d failed=%d cas-mismatches=%d%n",
        w.operations.get(), w.acked.get(), w.ambiguous.get(), w.failed.get(), w.casMismatches.get()));
    long keyWritesAcked = w.writers.stream().mapToLong(RegisterModel::ackedKeyWrites).sum();
    s.append(String.format("lost=%d final-violations=%d live-violations=%d keys-checked=%d scans=%d"
        + " acked-key-writes=%d%n", check.lost, check.violations.size(), w.liveViolations.size(), check.keysChecked,
        check.scans, keyWritesAcked));
    for (int c = 0; c < COUNTERS; c++) {
      CounterModel m = w.counters.get(c);
      s.append(String.format("counter %s = %d (acked increments %d, ambiguous %d)%n", Workload.counterKey(c),
          check.counterValues.get(Workload.counterKey(c)), m.acked(), m.ambiguous()));
    }
    s.append(check.linearizability).append(String.format(" (checked in %d ms)%n", check.linearizabilityMillis));
    s.append("faults injected: ").append(nemesis.injected).append('\n');
    s.append("failures per fault kind: ").append(faults.failuresByKind()).append('\n');
    Map<String, String> stalls = new TreeMap<>();
    faults.longestStallByKind().forEach((k, v) -> stalls.put(k, String.format("%.2fs", v / 1e9)));
    s.append("longest acknowledged write overlapping a fault: ").append(stalls).append('\n');
    if (!nemesis.adminFailures.isEmpty()) {
      s.append("admin commands refused: ").append(nemesis.adminFailures).append('\n');
    }
    if (!faults.outsideSamples().isEmpty()) {
      s.append("failures outside faults (samples): ").append(faults.outsideSamples()).append('\n');
    }
    check.violations.stream().limit(20).forEach(v -> s.append("VIOLATION ").append(v).append('\n'));
    w.liveViolations.stream().limit(20).forEach(v -> s.append("LIVE VIOLATION ").append(v).append('\n'));
    s.append("journal:\n");
    nemesis.journal.forEach(j -> s.append("  ").append(j).append('\n'));
    return s.toString();
  }


}
