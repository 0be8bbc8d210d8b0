package dev.rangekv.bench.observe;

import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.server.observe.GrpcMetrics;
import dev.rangekv.server.observe.NodeMetrics;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One {@code GET /metrics} render of a node's registry: the real {@link NodeMetrics} (JVM, process and
 * store meters over an empty store, Raft bridge, apply timer, per-range gauges for {@code ranges} led
 * ranges) plus the {@link GrpcMetrics} meters of the methods and outcomes a serving node sees. It runs
 * once per scrape interval, so its cost per operation is this figure over the operations of one interval.
 * No Ratis group runs here, so the Raft bridge has no Ratis registry to read (a node's bridge reads them
 * at most every 500 ms).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ScrapeCostBenchmark {
  private static final List<String> METHODS = List.of(
      KvServiceGrpc.getCallsMethod().getFullMethodName(), KvServiceGrpc.getGetMethod().getFullMethodName(),
      KvServiceGrpc.getPutMethod().getFullMethodName(), KvServiceGrpc.getScanMethod().getFullMethodName(),
      KvServiceGrpc.getBatchMethod().getFullMethodName(), KvServiceGrpc.getDeleteMethod().getFullMethodName(),
      "rangekv.meta.v1.MetaNodeService/Heartbeat", "rangekv.v1.MetaService/GetMap");
  private static final List<String> OUTCOMES = List.of("OK", "NOT_LEADER", "RANGE_MOVED");

  /** Led ranges with their own series: 1 as in the benchmarks' one-range cluster, 100 the cap. */
  @Param({"1", "100"})
  public int ranges;

  private Path dir;
  private NodeStore store;
  private NodeMetrics metrics;

  @Setup(Level.Trial)
  public void start() throws IOException {
    dir = Files.createTempDirectory("rangekv-scrape");
    store = NodeStore.open(dir, StoreOptions.defaults());
    metrics = new NodeMetrics("n1", store, new NodeMetrics.Source() {
      @Override
      public int replicas() {
        return ranges;
      }

      @Override
      public int leaders() {
        return ranges;
      }
    }, registry -> new dev.rangekv.server.ratis.RaftMetrics("n1", registry));
    GrpcMetrics grpc = new GrpcMetrics(metrics.registry());
    for (String method : METHODS) {
      for (String outcome : OUTCOMES) {
        grpc.streamCalls().answered(method, outcome, 1_000_000L);
      }
    }
    for (int i = 1; i <= 1000; i++) {
      metrics.raft().applied(i * 10_000L);
    }
    HeartbeatRequest.Builder beat = HeartbeatRequest.newBuilder();
    for (int r = 1; r <= ranges; r++) {
      beat.addRanges(RangeStatsProto.newBuilder().setLeader(true)
          .setRange(RangeDescriptorProto.newBuilder().setRangeId(r))
          .setBytes(1_000_000L * r).setKeys(10_000L * r).setReadQps(100.0 * r).setWriteQps(10.0 * r)
          .setWriteBytesPerSecond(1000.0 * r));
    }
    metrics.ranges().update(beat.build());
    String text = metrics.scrape();
    long series = text.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
    System.out.printf("%n[scrape] %d series, %d bytes%n", series, text.length());
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    metrics.close();
    store.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Benchmark
  public String scrape() {
    return metrics.scrape();
  }
}
