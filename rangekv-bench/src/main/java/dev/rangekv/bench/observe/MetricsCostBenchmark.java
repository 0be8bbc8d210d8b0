package dev.rangekv.bench.observe;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.GetResponse;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.PutResponse;
import dev.rangekv.proto.calls.CallStream;
import dev.rangekv.server.observe.GrpcMetrics;
import dev.rangekv.server.ratis.RaftMetrics;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
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
 * The per-call work a node's metrics add, metrics {@code on} against {@code off} (what a node with
 * {@code HttpSettings.DISABLED} does instead), on the real meters in a real Prometheus registry:
 * <ul>
 *   <li>{@code unaryPut}/{@code unaryGet}: one unary call over gRPC's in-process transport to a service
 *       that answers at once; "on" adds the node's {@link GrpcMetrics} interceptor, so the difference is
 *       the interceptor (call wrapper, per-method counter, latency histogram).</li>
 *   <li>{@code streamAnswered}: what {@link CallStream} does per answered call: the elapsed-time
 *       reading it takes either way, then its {@link CallStream.Meter} ({@link GrpcMetrics#streamCalls}
 *       or the node's no-op).</li>
 *   <li>{@code applyTimed}: the state machine's timing of one applied entry, reported to the apply
 *       timer ({@link RaftMetrics#applied}) or to the replica directory's default no-op.</li>
 * </ul>
 * The scrape is measured apart ({@link ScrapeCostBenchmark}): it runs once per scrape interval, not per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class MetricsCostBenchmark {
  private static final String PUT = KvServiceGrpc.getPutMethod().getFullMethodName();

  @Param({"off", "on"})
  public String metrics;

  private PrometheusMeterRegistry registry;
  private Server server;
  private ManagedChannel channel;
  private KvServiceGrpc.KvServiceBlockingStub stub;
  private CallStream.Meter meter;
  private LongConsumer applied;
  private final PutRequest put = PutRequest.newBuilder()
      .setKey(ByteString.copyFromUtf8("user0000000042"))
      .setValue(ByteString.copyFrom(new byte[100])).build();
  private final GetRequest get = GetRequest.newBuilder().setKey(ByteString.copyFromUtf8("user0000000042")).build();

  /** Answers puts and gets at once: the calls' own work is not what is measured. */
  static final class Trivial extends KvServiceGrpc.KvServiceImplBase {
    private static final GetResponse FOUND =
        GetResponse.newBuilder().setFound(true).setValue(ByteString.copyFrom(new byte[100])).build();

    @Override
    public void put(PutRequest request, StreamObserver<PutResponse> out) {
      out.onNext(PutResponse.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public void get(GetRequest request, StreamObserver<GetResponse> out) {
      out.onNext(FOUND);
      out.onCompleted();
    }
  }

  @Setup(Level.Trial)
  public void start() throws IOException {
    boolean on = switch (metrics) {
      case "on" -> true;
      case "off" -> false;
      default -> throw new IllegalArgumentException("metrics must be on or off: " + metrics);
    };
    ServerServiceDefinition service = new Trivial().bindService();
    if (on) {
      registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      GrpcMetrics grpc = new GrpcMetrics(registry);
      RaftMetrics raft = new RaftMetrics("n1", registry);
      service = ServerInterceptors.intercept(service, grpc);
      meter = grpc.streamCalls();
      applied = raft::applied;
    } else {
      meter = (method, outcome, nanos) -> { };
      applied = nanos -> { };
    }
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(service).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stub = KvServiceGrpc.newBlockingStub(channel);
  }

  @TearDown(Level.Trial)
  public void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    if (registry != null) {
      registry.close();
    }
  }

  @Benchmark
  public PutResponse unaryPut() {
    return stub.put(put);
  }

  @Benchmark
  public GetResponse unaryGet() {
    return stub.get(get);
  }

  @Benchmark
  public void streamAnswered() {
    long start = System.nanoTime();
    meter.answered(PUT, "OK", System.nanoTime() - start);
  }

  @Benchmark
  public void applyTimed() {
    long start = System.nanoTime();
    applied.accept(System.nanoTime() - start);
  }
}
