package dev.rangekv.bench.cluster;

import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.server.observe.HttpSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The cost of metrics: the {@link ClusterThroughput} workload (3 nodes, replication 3, closed loop, writes
 * then reads) on a cluster without metrics and on one with them (gRPC interceptor, meters, Raft latencies
 * bridged from Ratis, HTTP port, every node scraped each second), alternating in one JVM so drift in the
 * machine's load hits both: after a warm-up round of each, odd rounds run off then on, even rounds on then off.
 * Ends with the median of each variant. Usage:
 * {@code MetricsOverhead <threads> <seconds> <rounds> [unsafe-flush|fsync] [warm-up seconds]}.
 */
public final class MetricsOverhead {
  private MetricsOverhead() {}

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    boolean unsafeFlush = args.length > 3 && args[3].equals("unsafe-flush");
    int warmUp = args.length > 4 ? Integer.parseInt(args[4]) : Math.max(3, seconds / 2);
    RaftTuning tuning = RaftTuning.defaults().withUnsafeFlush(unsafeFlush);
    System.out.printf("metrics overhead: nodes=3 replication=3 ranges=1 threads=%d seconds=%d rounds=%d warmUp=%d"
        + " raftLogFsync=%s%n", threads, seconds, rounds, warmUp, unsafeFlush ? "async (unsafe-flush)" : "before ack");
    // a warm-up round of each variant first (JIT, the metrics code paths included), not reported
    once("warm-up", tuning, HttpSettings.DISABLED, threads, warmUp, false);
    once("warm-up", tuning, HttpSettings.on("127.0.0.1", 0), threads, warmUp, false);
    Map<Boolean, List<double[]>> results = new TreeMap<>();
    for (int r = 1; r <= rounds; r++) {
      for (boolean on : r % 2 == 1 ? new boolean[] {false, true} : new boolean[] {true, false}) {
        double[] rates = once("round " + r + " metrics=" + (on ? "on" : "off"), tuning,
            on ? HttpSettings.on("127.0.0.1", 0) : HttpSettings.DISABLED, threads, seconds, true);
        results.computeIfAbsent(on, k -> new ArrayList<>()).add(rates);
      }
    }
    results.forEach((on, runs) -> System.out.printf("median metrics=%s: writes=%.0f ops/s reads=%.0f ops/s (of %d runs)%n",
        on ? "on" : "off", median(runs, 0), median(runs, 1), runs.size()));
  }

  private static double median(List<double[]> runs, int i) {
    double[] v = runs.stream().mapToDouble(r -> r[i]).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** One cluster's write then read phase; returns {writes/s, reads/s}. */
  private static double[] once(String label, RaftTuning tuning, HttpSettings http, int threads, int seconds, boolean report)
      throws Exception {
    Path dir = Files.createTempDirectory("rangekv-bench");
    ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor();
    try (LocalCluster cluster = LocalCluster.start(3, dir, tuning, Optional.empty(), http);
        BenchCluster bench = new BenchCluster(cluster)) {
      bench.awaitLeaders();
      HttpClient client = HttpClient.newHttpClient();
      for (int i = 0; i < cluster.size(); i++) {
        cluster.node(i).httpAddress().ifPresent(a -> scraper.scheduleAtFixedRate(() -> {
          try {
            client.send(HttpRequest.newBuilder(URI.create("http://" + a + "/metrics")).build(),
                HttpResponse.BodyHandlers.discarding());
          } catch (Exception e) {
            System.out.println("scrape failed: " + e);
          }
        }, 1, 1, TimeUnit.SECONDS));
      }
      ClusterThroughput.Result w = ClusterThroughput.run(bench, threads, seconds, true);
      ClusterThroughput.Result r = ClusterThroughput.run(bench, threads, seconds, false);
      scraper.shutdownNow(); // before the nodes stop: a scrape of a stopped node only fails
      if (report) {
        System.out.println("== " + label);
        ClusterThroughput.report("write", w);
        ClusterThroughput.report("read", r);
      }
      return new double[] {w.ops() / w.seconds(), r.ops() / r.seconds()};
    } finally {
      scraper.shutdownNow();
      BenchCluster.deleteRecursively(dir);
    }
  }
}
