package dev.rangekv.server.raft;

import dev.rangekv.server.security.ClusterIdCheck;

import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * gRPC channels from this node to other nodes' client ports (node-to-node replica service), one per
 * address, shared and closed with the node. Thread-safe.
 */
public final class PeerChannels implements AutoCloseable {
  private static final int MAX_MESSAGE_BYTES = 16 << 20;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final int maxMessageBytes;
  private final String clusterId;
  /** Empty: plaintext (an insecure cluster). */
  private final Optional<SslContext> tls;
  /** A command's own network threads, ended by {@link #close()}; empty: gRPC's shared event loops (a node). */
  private final Optional<EventLoopGroup> loops;
  private volatile boolean closed;

  public PeerChannels() {
    this(MAX_MESSAGE_BYTES);
  }

  /** @param maxMessageBytes the largest reply accepted (a command listing a big cluster needs more) */
  public PeerChannels(int maxMessageBytes) {
    this(maxMessageBytes, "", Optional.empty(), Optional.empty());
  }

  /** A command's channels: {@code tls} (a client certificate) or plaintext when empty. */
  public PeerChannels(int maxMessageBytes, Optional<SslContext> tls) {
    this(maxMessageBytes, "", tls, Optional.empty());
  }

  /**
   * A one-shot command's channels ({@code tls}: a client certificate, or plaintext when empty) on their
   * own event loop, which {@link #close()} ends: gRPC's shared event loops sit in {@code epoll_wait} until
   * a second after the last channel closes, and HotSpot's exit waits ~300 ms for a thread in native code.
   */
  public static PeerChannels forCommand(int maxMessageBytes, Optional<SslContext> tls) {
    return new PeerChannels(maxMessageBytes, "", tls,
        Optional.of(new NioEventLoopGroup(1, new DefaultThreadFactory("rangekv-command-io", true))));
  }

  /**
   * A node's channels: every call carries {@code clusterId} (empty: none), so nodes of another cluster
   * refuse it (see {@link ClusterIdCheck}).
   */
  public static PeerChannels ofCluster(String clusterId) {
    return ofCluster(clusterId, Optional.empty());
  }

  /** A node's channels, with mutual TLS when {@code tls} is given. */
  public static PeerChannels ofCluster(String clusterId, Optional<SslContext> tls) {
    return new PeerChannels(MAX_MESSAGE_BYTES, clusterId, tls, Optional.empty());
  }

  private PeerChannels(int maxMessageBytes, String clusterId, Optional<SslContext> tls, Optional<EventLoopGroup> loops) {
    this.maxMessageBytes = maxMessageBytes;
    this.clusterId = clusterId;
    this.tls = tls;
    this.loops = loops;
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
    loops.ifPresent(l -> b.eventLoopGroup(l).channelType(NioSocketChannel.class));
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
    if (loops.isPresent()) {
      try {
        for (ManagedChannel c : channels.values()) {
          c.awaitTermination(5, TimeUnit.SECONDS);
        }
        // no quiet period: every channel has terminated, nothing more will run on the loop
        loops.get().shutdownGracefully(0, 5, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    channels.clear();
  }
}
