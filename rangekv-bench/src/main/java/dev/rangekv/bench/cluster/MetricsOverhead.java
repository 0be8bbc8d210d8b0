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
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The cost of metrics: the {@link ClusterThroughput} workload (3 nodes, replication 3, closed loop, writes
 * then reads) on a cluster without metrics and on one with them (gRPC interceptor, meters, HTTP port,
 * every node scraped each second), alternating {@code rounds} times in one JVM so drift in the machine's
 * load hits both. Usage: {@code MetricsOverhead <threads> <seconds> <rounds> [unsafe-flush]}.
 */
public final class MetricsOverhead {
  private MetricsOverhead() {}

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    boolean unsafeFlush = args.length > 3 && args[3].equals("unsafe-flush");
    RaftTuning tuning = RaftTuning.defaults().withUnsafeFlush(unsafeFlush);
    System.out.printf("metrics overhead: nodes=3 replication=3 ranges=1 threads=%d seconds=%d rounds=%d raftLogFsync=%s%n",
        threads, seconds, rounds, unsafeFlush ? "async (unsafe-flush)" : "before ack");
    // a warm-up round first (JIT), not reported
    once("warm-up", tuning, HttpSettings.DISABLED, threads, Math.max(3, seconds / 2), false);
    for (int r = 1; r <= rounds; r++) {
      once("round " + r + " metrics=off", tuning, HttpSettings.DISABLED, threads, seconds, true);
      once("round " + r + " metrics=on", tuning, HttpSettings.on("127.0.0.1", 0), threads, seconds, true);
    }
  }

  private static void once(String label, RaftTuning tuning, HttpSettings http, int threads, int seconds, boolean report)
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
      if (report) {
        System.out.println("== " + label);
        ClusterThroughput.report("write", w);
        ClusterThroughput.report("read", r);
      }
    } finally {
      scraper.shutdownNow();
      BenchCluster.deleteRecursively(dir);
    }
  }
}
