package dev.rangekv.server.ratis;

import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.util.NettyUtils;

/**
 * The Netty event loops of a node's Ratis server, owned by the node rather than by Ratis. Ratis
 * 3.3.0 stops the loops it creates with Netty's default graceful shutdown, which waits for a 2 s
 * quiet period: every node stop took 2 s more (every in-JVM cluster test paid it per node, and
 * {@code rangekv start} after Ctrl-C). The node stops these after Ratis has closed its server, when
 * no channel is left on them, without a quiet period.
 *
 * <p>Ratis therefore gets no loops of its own ({@link RatisProperties#of} leaves its group
 * sizes at 0): its server takes these through the services customizer, and its outbound channels
 * to peers share gRPC's default client loops (released without a wait).
 */
final class RaftEventLoops implements AutoCloseable {
  private static final long CLOSE_TIMEOUT_SECONDS = 5;

  private final EventLoopGroup bosses;
  private final EventLoopGroup workers;

  private RaftEventLoops(String nodeId, int workerThreads) {
    // epoll where Netty has it, as Ratis' own loops would (raft.grpc.use-epoll defaults to true)
    this.bosses = NettyUtils.newEventLoopGroup("rangekv-" + nodeId + "-raft-boss", 1, true);
    this.workers = NettyUtils.newEventLoopGroup("rangekv-" + nodeId + "-raft-workers", workerThreads, true);
  }

  /**
   * Loops of {@code workerThreads} workers, installed in {@code parameters} in front of any services
   * customizer already there (the TLS peer check).
   */
  static RaftEventLoops install(String nodeId, int workerThreads, Parameters parameters) {
    RaftEventLoops loops = new RaftEventLoops(nodeId, workerThreads);
    GrpcServices.Customizer previous = GrpcConfigKeys.Server.servicesCustomizer(parameters);
    GrpcConfigKeys.Server.setServicesCustomizer(parameters, (builder, types) -> {
      builder.channelType(NettyUtils.getServerChannelClass(loops.workers))
          .bossEventLoopGroup(loops.bosses)
          .workerEventLoopGroup(loops.workers);
      return previous == null ? builder : previous.customize(builder, types);
    });
    return loops;
  }

  /** Stops the loops at once; call after the Ratis server is closed. */
  @Override
  public void close() {
    var bossesDone = bosses.shutdownGracefully(0, CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    var workersDone = workers.shutdownGracefully(0, CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    bossesDone.awaitUninterruptibly(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    workersDone.awaitUninterruptibly(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }
}
