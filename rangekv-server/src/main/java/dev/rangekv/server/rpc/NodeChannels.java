package dev.rangekv.server.rpc;

import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * gRPC channels from this node to other nodes' client ports (node-to-node replica service), one per
 * address, shared and closed with the node. Thread-safe.
 */
public final class NodeChannels implements AutoCloseable {
  private static final int MAX_MESSAGE_BYTES = 16 << 20;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final int maxMessageBytes;
  private final String clusterId;
  /** Empty: plaintext (an insecure cluster). */
  private final Optional<SslContext> tls;
  private volatile boolean closed;

  public NodeChannels() {
    this(MAX_MESSAGE_BYTES);
  }

  /** @param maxMessageBytes the largest reply accepted (a command listing a big cluster needs more) */
  public NodeChannels(int maxMessageBytes) {
    this(maxMessageBytes, "", Optional.empty());
  }

  /** A command's channels: {@code tls} (a client certificate) or plaintext when empty. */
  public NodeChannels(int maxMessageBytes, Optional<SslContext> tls) {
    this(maxMessageBytes, "", tls);
  }

  /**
   * A node's channels: every call carries {@code clusterId} (empty: none), so nodes of another cluster
   * refuse it (see {@link ClusterIdCheck}).
   */
  public static NodeChannels ofCluster(String clusterId) {
    return ofCluster(clusterId, Optional.empty());
  }

  /** A node's channels, with mutual TLS when {@code tls} is given. */
  public static NodeChannels ofCluster(String clusterId, Optional<SslContext> tls) {
    return new NodeChannels(MAX_MESSAGE_BYTES, clusterId, tls);
  }

  private NodeChannels(int maxMessageBytes, String clusterId, Optional<SslContext> tls) {
    this.maxMessageBytes = maxMessageBytes;
    this.clusterId = clusterId;
    this.tls = tls;
  }

  public ManagedChannel channel(String address) {
    if (closed) {
      throw new IllegalStateException("node channels closed");
    }
    return channels.computeIfAbsent(address, a -> secure(NettyChannelBuilder.forTarget(a))
        .maxInboundMessageSize(maxMessageBytes)
        .intercept(new ClusterIdCheck(clusterId))
        .build());
  }

  private NettyChannelBuilder secure(NettyChannelBuilder b) {
    return tls.isPresent() ? b.sslContext(tls.get()) : b.usePlaintext();
  }

  /** A blocking stub of the replica service at {@code address} with a deadline of {@code timeout}. */
  public ReplicaServiceGrpc.ReplicaServiceBlockingStub replicaService(String address, Duration timeout) {
    return ReplicaServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    closed = true;
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
