package dev.rangekv.cli.node;

import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import dev.rangekv.proto.replica.IdentifyRequest;
import dev.rangekv.proto.replica.IdentifyResponse;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
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
 *
 * <p>A seed that cannot be reached is skipped after the first deadline; one that is connected but slow
 * to answer (a loaded machine, a node still starting) is asked again with a longer deadline, because a
 * restart that gave up on a slow seed of another cluster would start on the wrong side of the identity
 * check and change its data directory before registration refused it.
 */
final class SeedIdentity {
  private static final List<Duration> ASK_DEADLINES =
      List.of(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20));

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
        Optional<Answer> answer = askOne(seed, channel);
        if (answer.isPresent()) {
          return answer;
        }
      } finally {
        channel.shutdownNow();
      }
    }
    return Optional.empty();
  }

  /** One seed's answer; empty when nothing listens there, it is not a RangeKV node, or it stayed silent. */
  private static Optional<Answer> askOne(String seed, ManagedChannel channel) {
    for (Duration deadline : ASK_DEADLINES) {
      try {
        IdentifyResponse r = ClusterIdentityServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
            .identify(IdentifyRequest.getDefaultInstance());
        return Optional.of(new Answer(seed, r.getClusterId(), r.getNodeId()));
      } catch (StatusRuntimeException e) {
        boolean connectedButSlow = e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED
            && channel.getState(false) == ConnectivityState.READY;
        if (!connectedButSlow) {
          return Optional.empty(); // refused, unreachable, or not a RangeKV node: the next seed
        }
      }
    }
    return Optional.empty();
  }
}
