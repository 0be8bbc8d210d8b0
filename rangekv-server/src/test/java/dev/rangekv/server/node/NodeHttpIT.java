package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A node's HTTP port: Prometheus text that moves with requests, and health that tells when it can serve. */
class NodeHttpIT {
  private static final ControllerConfig FAST = ControllerConfig.builder().tickMillis(300).build();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void metrics_parseAsPrometheusText_andTheirCountersMoveWithRequests() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests(), FAST);
        ClusterRouter router = ClusterSteps.router(cluster)) {
      String base = "http://" + cluster.node(0).httpAddress().orElseThrow();
      router.refresh();
      router.put("warm", "1");
      String put = "rangekv_grpc_server_calls_seconds_count{method=\"rangekv.v1.KvService/Put\",node=\"n1\",outcome=\"OK\"}";
      double before = parse(get(base + "/metrics").body()).get(put);

      for (int i = 0; i < 25; i++) {
        router.put("k" + i, "v" + i);
      }
      router.get("k1");

      HttpResponse<String> metrics = get(base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
      Map<String, Double> samples = parse(metrics.body());
      assertThat(samples.get(put) - before).isGreaterThanOrEqualTo(25);
      assertThat(samples).containsKey("rangekv_request_latency_seconds_count{kind=\"write\",node=\"n1\"}");
      assertThat(samples.get("rangekv_request_latency_seconds_count{kind=\"read\",node=\"n1\"}")).isGreaterThanOrEqualTo(1);
      assertThat(samples.keySet()).anyMatch(k -> k.startsWith("rangekv_request_latency_seconds_bucket{kind=\"write\""));
      assertThat(samples.get("rangekv_replicas{node=\"n1\"}")).isEqualTo(1);

      // a call on the call stream counts as its unary twin (here a get the node refuses for its header)
      String gets = "rangekv_grpc_server_calls_seconds_count{method=\"rangekv.v1.KvService/Get\"";
      double getsBefore = sum(samples, gets);
      dev.rangekv.proto.KvCallResult answer = streamGet(cluster.config(0).clientAddress());
      assertThat(answer.hasError() || answer.hasGet()).isTrue();
      // the server counts a call when it closes, which may come just after the client has its answer
      Await.until(Duration.ofSeconds(10), "the stream's get counted",
          () -> sum(parse(uncheckedGet(base + "/metrics")), gets) - getsBefore >= 1);
      assertThat(sum(parse(get(base + "/metrics").body()), gets) - getsBefore).isEqualTo(1);
      assertThat(samples.get("rangekv_leaders{node=\"n1\"}")).isEqualTo(1);
      assertThat(samples).containsKeys("rangekv_store_sst_bytes{node=\"n1\"}", "rangekv_store_memtable_bytes{node=\"n1\"}",
          "rangekv_store_pending_compaction_bytes{node=\"n1\"}", "rangekv_store_block_cache_hit_ratio{node=\"n1\"}");
      assertThat(samples.get("rangekv_store_memtable_bytes{node=\"n1\"}")).isPositive();
      assertThat(samples.keySet()).anyMatch(k -> k.startsWith("jvm_memory_used_bytes{"))
          .anyMatch(k -> k.startsWith("process_uptime_seconds{"));
      // the heartbeat after the writes publishes the led range's load
      Await.until(Duration.ofSeconds(30), "per-range gauges", () -> parse(uncheckedGet(base + "/metrics")).entrySet()
          .stream().anyMatch(e -> e.getKey().startsWith("rangekv_range_keys{") && e.getValue() > 0));
    }
  }

  @Test
  @Timeout(180)
  void raftLatencies_areBridgedPerNode_andMoveWithWrites() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests(), FAST);
        ClusterRouter router = ClusterSteps.router(cluster)) {
      router.refresh();
      router.put("warm", "1");
      Map<String, Double> before = allNodes(cluster);
      for (int i = 0; i < 20; i++) {
        router.put("raft" + i, "v" + i);
      }
      // counters advance on every node that holds a replica: proposals on the leader, follower appends on
      // the two followers, log appends, fsyncs and applies everywhere (Ratis' readings are cached 500 ms).
      // The multi-raft engine times no log append or follower append (README, "Metrics"): those two stay
      // at zero on it, now that the meta range runs on it too
      boolean ratis = EngineChoice.current() == EngineChoice.RATIS;
      List<String> appends = List.of("rangekv_raft_follower_appends_total", "rangekv_raft_log_appends_total");
      for (String counter : List.of("rangekv_raft_proposals_total", "rangekv_raft_follower_appends_total",
          "rangekv_raft_log_appends_total", "rangekv_raft_log_syncs_total", "rangekv_raft_apply_seconds_count")) {
        if (!ratis && appends.contains(counter)) {
          assertThat(sum(allNodesUnchecked(cluster), counter)).as(counter).isZero();
          continue;
        }
        Await.until(Duration.ofSeconds(30), counter + " moves",
            () -> sum(allNodesUnchecked(cluster), counter) - sum(before, counter) >= 20);
      }
      Map<String, Double> after = allNodes(cluster);
      // per node, not per range: one series per quantile and node, whatever the number of groups
      assertThat(after.keySet().stream().filter(k -> k.startsWith("rangekv_raft_proposal_seconds{"))).hasSize(9);
      assertThat(after.keySet()).contains("rangekv_raft_proposal_seconds{node=\"n1\",quantile=\"0.99\"}");
      for (String latency : List.of("rangekv_raft_proposal_seconds{", "rangekv_raft_log_append_seconds{",
          "rangekv_raft_log_sync_seconds{", "rangekv_raft_follower_append_seconds{")) {
        if (!ratis && (latency.contains("log_append") || latency.contains("follower_append"))) {
          continue;
        }
        assertThat(after.entrySet().stream().filter(e -> e.getKey().startsWith(latency))
            .mapToDouble(Map.Entry::getValue).max().orElse(0)).as(latency).isPositive();
      }
      assertThat(after.keySet()).anyMatch(k -> k.startsWith("rangekv_raft_apply_seconds_bucket{"));
    }
  }

  @Test
  @Timeout(120)
  void heatmapApi_keepsBytesWrittenPerBand_besideReadsAndWrites() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests(), FAST);
        ClusterRouter router = ClusterSteps.router(cluster)) {
      String heatmap = "http://" + cluster.node(0).httpAddress().orElseThrow() + "/api/heatmap";
      router.refresh();
      String value = "x".repeat(1_000);
      for (int i = 0; i < 30; i++) {
        router.put(String.format("b%03d", i), value); // 4-byte keys: 1,004 bytes per write
      }
      List<com.google.gson.JsonObject> written = new java.util.ArrayList<>();
      Await.until(Duration.ofSeconds(30), "a heat map band with bytes written", () -> {
        written.clear();
        com.google.gson.JsonObject map = com.google.gson.JsonParser.parseString(uncheckedGet(heatmap)).getAsJsonObject();
        map.getAsJsonArray("columns").forEach(c -> c.getAsJsonObject().getAsJsonArray("bands").forEach(b -> {
          if (b.getAsJsonObject().get("bytes").getAsDouble() > 0) {
            written.add(b.getAsJsonObject());
          }
        }));
        return !written.isEmpty();
      });
      // rates over the same heartbeat interval: bytes per write is exactly what each write carried
      for (com.google.gson.JsonObject band : written) {
        assertThat(band.get("bytes").getAsDouble() / band.get("write").getAsDouble()).isCloseTo(1_004, within(0.01));
        assertThat(band.get("read").getAsDouble()).isZero();
      }
    }
  }

  /** Every node's samples in one map (their series differ by the node label). */
  private static Map<String, Double> allNodes(LocalCluster cluster) throws IOException, InterruptedException {
    Map<String, Double> all = new HashMap<>();
    for (int i = 0; i < cluster.size(); i++) {
      all.putAll(parse(get("http://" + cluster.node(i).httpAddress().orElseThrow() + "/metrics").body()));
    }
    return all;
  }

  private static Map<String, Double> allNodesUnchecked(LocalCluster cluster) {
    try {
      return allNodes(cluster);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  @Timeout(120)
  void health_isUpAtOnce_butReadyOnlyOnceTheMetaRangeAnswers() throws Exception {
    // a node whose meta range is not there (its seed is a port nobody listens on) is up, not ready
    NodeConfig lonely = NodeConfig.loopback("n1", dir.resolve("lonely"))
        .withMeta(MetaSettings.enabled(FAST, List.of("127.0.0.1:" + NodeConfig.freePort())));
    try (RangeKvNode node = RangeKvNode.start(lonely)) {
      String base = "http://" + node.httpAddress().orElseThrow();
      assertThat(get(base + "/health").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = get(base + "/health?ready=1");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).contains("meta range");
      assertThat(grpcHealth(node.config().clientAddress())).isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
    }
    try (LocalCluster cluster = LocalCluster.start(1, dir.resolve("cluster"), RaftTuning.forTests(), FAST)) {
      String base = "http://" + cluster.node(0).httpAddress().orElseThrow();
      Await.until(Duration.ofSeconds(30), "ready", () -> uncheckedStatus(base + "/health?ready=1") == 200);
      Await.until(Duration.ofSeconds(30), "gRPC health SERVING",
          () -> grpcHealth(cluster.config(0).clientAddress()) == HealthCheckResponse.ServingStatus.SERVING);
      RangeKvNode node = cluster.node(0);
      cluster.stop(0);
      assertThat(node.readiness().ready()).isFalse();
      assertThat(node.readiness().reason()).contains("stopping");
    }
  }

  /** Every line must be a comment or a sample of the text exposition format; returns series -> value. */
  static Map<String, Double> parse(String text) {
    Pattern sample = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\",?)*})?)"
        + " (-?[0-9.eE+-]+|NaN|[+-]Inf)( -?[0-9]+)?");
    Pattern comment = Pattern.compile("# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*");
    Map<String, Double> out = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        assertThat(line.isEmpty() || comment.matcher(line).matches() || line.startsWith("# EOF"))
            .as("comment line %s", line).isTrue();
        continue;
      }
      Matcher m = sample.matcher(line);
      assertThat(m.matches()).as("sample line %s", line).isTrue();
      out.put(m.group(1), Double.parseDouble(m.group(3).replace("Inf", "Infinity")));
    }
    assertThat(out).isNotEmpty();
    return out;
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String uncheckedGet(String url) {
    try {
      return get(url).body();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static int uncheckedStatus(String url) {
    try {
      return get(url).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static double sum(Map<String, Double> samples, String prefix) {
    return samples.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
  }

  /** One get on a call stream (range 1 at generation 0: answered with RANGE_MOVED or a value). */
  private static dev.rangekv.proto.KvCallResult streamGet(String address) throws Exception {
    ManagedChannel ch = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      java.util.concurrent.CompletableFuture<dev.rangekv.proto.KvCallResult> answer = new java.util.concurrent.CompletableFuture<>();
      io.grpc.stub.StreamObserver<dev.rangekv.proto.KvCalls> calls = dev.rangekv.proto.KvServiceGrpc.newStub(ch)
          .calls(new io.grpc.stub.StreamObserver<>() {
            @Override
            public void onNext(dev.rangekv.proto.KvCallResults r) {
              answer.complete(r.getResults(0));
            }

            @Override
            public void onError(Throwable t) {
              answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
          });
      calls.onNext(dev.rangekv.proto.KvCalls.newBuilder().addCalls(dev.rangekv.proto.KvCall.newBuilder().setId(1)
          .setGet(dev.rangekv.proto.GetRequest.newBuilder()
              .setHeader(dev.rangekv.proto.RangeHeader.newBuilder().setRangeId(1).setGeneration(0))
              .setKey(com.google.protobuf.ByteString.copyFromUtf8("k1")))).build());
      dev.rangekv.proto.KvCallResult r = answer.get(10, TimeUnit.SECONDS);
      calls.onCompleted();
      return r;
    } finally {
      ch.shutdownNow();
    }
  }

  private static HealthCheckResponse.ServingStatus grpcHealth(String address) {
    ManagedChannel ch = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    } finally {
      ch.shutdownNow();
    }
  }
}
