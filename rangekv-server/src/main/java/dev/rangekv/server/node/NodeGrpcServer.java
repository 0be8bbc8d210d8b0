package dev.rangekv.server.node;

import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.server.observe.GrpcMetrics;
import dev.rangekv.server.security.ClusterIdCheck;
import dev.rangekv.server.security.NodeTls;
import dev.rangekv.server.security.PeerCheck;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * The node's client port: its services behind the caller checks (TLS peer roles, then the cluster id)
 * and the call meters, with KV calls on the node's small KV pool.
 */
final class NodeGrpcServer {
  private static final int MAX_INBOUND_BYTES = 8 << 20;

  private NodeGrpcServer() {}

  /**
   * Starts serving {@code services} on the config's client address; {@code metrics} empty when the node
   * has no meters.
   */
  static Server start(NodeConfig config, Optional<NodeTls> tls, Optional<GrpcMetrics> metrics, String clusterId,
      HealthStatusManager health, Executor kvExecutor, List<ServerServiceDefinition> services) throws IOException {
    NettyServerBuilder grpc = NettyServerBuilder.forAddress(new InetSocketAddress(config.host(), config.clientPort()));
    metrics.ifPresent(grpc::intercept);
    if (tls.isPresent()) {
      // the caller check runs before the metrics interceptor (added later, so it runs first): a refused call
      // reaches no service and is logged by the check, once a minute per peer
      grpc.sslContext(tls.get().server()).intercept(new PeerCheck());
    }
    grpc.addService(health.getHealthService()).addService(ProtoReflectionServiceV1.newInstance());
    services.forEach(grpc::addService);
    return grpc
        .intercept(new ClusterIdCheck(clusterId))
        .callExecutor(new KvCallsOnPool(kvExecutor))
        .maxInboundMessageSize(MAX_INBOUND_BYTES)
        .build()
        .start();
  }

  /**
   * KV calls on a small fixed pool; admin and meta calls (some wait on Raft) keep gRPC's default. A call
   * stream's messages are read on the transport thread: its observer only hands each message's calls to
   * the pool, so a second hop per message would buy nothing. The same holds for the multi-raft engine's
   * peer streams: an envelope is decoded and handed to the stripes, nothing in it waits.
   */
  private record KvCallsOnPool(Executor kv) implements ServerCallExecutorSupplier {
    @Override
    public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
      if (call.getMethodDescriptor().getFullMethodName().equals(KvServiceGrpc.getCallsMethod().getFullMethodName())
          || call.getMethodDescriptor().getServiceName().equals(
              dev.rangekv.proto.multiraft.MultiRaftTransportGrpc.SERVICE_NAME)) {
        return Runnable::run;
      }
      return call.getMethodDescriptor().getServiceName().equals(KvServiceGrpc.SERVICE_NAME) ? kv : null;
    }
  }
}
