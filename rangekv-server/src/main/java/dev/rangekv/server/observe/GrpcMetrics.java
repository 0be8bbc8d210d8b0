package dev.rangekv.server.observe;

import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.convert.RangeKvErrors;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Counts every call a node's gRPC server answers, by method and outcome, and times client reads, writes
 * and scans in latency histograms. The outcome is {@code OK}, the typed RangeKV error ({@code
 * RANGE_MOVED}, {@code NOT_LEADER}, ...) when the trailers carry one, else the gRPC status code.
 *
 * <p>Thread-safe. Meters are looked up once per (method, outcome) and cached, so a call costs a map hit
 * and two timer records.
 */
public final class GrpcMetrics implements ServerInterceptor {
  private final MeterRegistry registry;
  private final Map<String, Timer> calls = new ConcurrentHashMap<>();
  private final Map<RequestKind, Timer> latency = new EnumMap<>(RequestKind.class);

  public GrpcMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (RequestKind kind : RequestKind.values()) {
      if (kind != RequestKind.OTHER) {
        latency.put(kind, Timer.builder("rangekv.request.latency")
            .description("client KV calls answered by this node, by kind")
            .tag("kind", kind.tag())
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofNanos(50_000))
            .maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry));
      }
    }
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                     ServerCallHandler<Q, R> next) {
    long start = System.nanoTime();
    String method = call.getMethodDescriptor().getFullMethodName();
    return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        record(method, outcome(status, trailers), System.nanoTime() - start);
        super.close(status, trailers);
      }
    }, headers);
  }

  /** Records the calls a call stream answers as their unary twins would be recorded. */
  public dev.rangekv.proto.calls.CallStream.Meter streamCalls() {
    return this::record;
  }

  private void record(String method, String outcome, long nanos) {
    calls.computeIfAbsent(method + '|' + outcome, k -> Timer.builder("rangekv.grpc.server.calls")
        .description("gRPC calls answered by this node, by method and outcome")
        .tag("method", method)
        .tag("outcome", outcome)
        .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    Timer t = latency.get(RequestKind.of(method));
    if (t != null) {
      t.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  static String outcome(Status status, Metadata trailers) {
    if (status.isOk()) {
      return "OK";
    }
    RangeKvError typed = trailers.get(RangeKvErrors.TRAILER_KEY);
    if (typed != null && typed.getKindCase() != RangeKvError.KindCase.KIND_NOT_SET) {
      return typed.getKindCase().name();
    }
    return status.getCode().name();
  }
}
