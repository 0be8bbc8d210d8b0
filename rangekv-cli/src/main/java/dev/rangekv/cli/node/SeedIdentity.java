package dev.rangekv.cli.node;

import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import dev.rangekv.proto.replica.IdentifyRequest;
import dev.rangekv.proto.replica.IdentifyResponse;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.security.NodeTls;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Asks the {@code --join} seeds who they are before a node touches its data directory: the first seed
 * that answers gives the cluster id to join (or to compare with the directory's own).
 */
final class SeedIdentity {
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  /** A seed's answer: its address, cluster id and node id. */
  record Answer(String address, String clusterId, String nodeId) {}

  private SeedIdentity() {}

  /** The first seed's answer, or empty when no seed answered as a RangeKV node. */
  static Optional<Answer> ask(List<String> seeds, Optional<TlsFiles> tls) {
    Optional<SslContext> context = tls.map(NodeTls::clientContext);
    for (String seed : seeds) {
      NettyChannelBuilder b = NettyChannelBuilder.forTarget(seed);
      ManagedChannel channel = (context.isPresent() ? b.sslContext(context.get()) : b.usePlaintext()).build();
      try {
        IdentifyResponse r = ClusterIdentityServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .identify(IdentifyRequest.getDefaultInstance());
        return Optional.of(new Answer(seed, r.getClusterId(), r.getNodeId()));
      } catch (StatusRuntimeException e) {
        // nothing there, or not a RangeKV node: try the next seed
      } finally {
        channel.shutdownNow();
      }
    }
    return Optional.empty();
  }
}
