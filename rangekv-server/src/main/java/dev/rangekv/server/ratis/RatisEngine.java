package dev.rangekv.server.ratis;

import dev.rangekv.meta.ratis.MetaGroups;
import dev.rangekv.meta.ratis.MetaStateMachine;
import dev.rangekv.meta.state.MetaLimits;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.consensus.EngineTuning;
import dev.rangekv.server.consensus.GroupEventHub;
import dev.rangekv.server.consensus.MetaConsensus;
import dev.rangekv.server.replica.RangeReplica;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;

/**
 * A node's Ratis server, started and stopped as one engine: its properties ({@link RatisProperties}),
 * TLS ({@link RatisTls}), Netty loops ({@link RaftEventLoops}), the storage layout of parked groups
 * ({@link ParkedGroups}), the port check Ratis needs ({@link RaftPortCheck}) and the state machine
 * registry (a {@link RangeStateMachine} around each range's {@link RangeReplica}; a {@link
 * MetaStateMachine} for the meta range's group). Its range groups are reached through {@link #ranges()},
 * the meta range's through {@link #meta()}.
 */
public final class RatisEngine implements AutoCloseable {
  /** The logger names Ratis logs under (it prints every setting at info on start: tools quiet it). */
  public static final String LOGGER_NAMESPACE = "org.apache.ratis";

  /**
   * How to start the engine.
   *
   * @param raftDir where Ratis keeps its groups ({@code groups/}, {@code dormant/}, {@code removed-groups/})
   * @param dataDir the node's data directory (the meta peers file)
   * @param portWait how long a start waits for its Raft port to be free before it fails
   * @param requestTimeout how long a proposal or read may take before it fails as timed out
   */
  public record Config(String nodeId, String host, int raftPort, Path raftDir, Path dataDir, EngineTuning tuning,
      Optional<TlsFiles> tls, Duration portWait, Duration requestTimeout) {}

  /** What the engine needs of its node to open groups. */
  public interface Host {
    /** The ranges the node holds records of, and whether each is dormant (its group stays closed at start). */
    Iterable<Long> ranges();

    boolean dormant(long rangeId);

    /** A new replica for a range group the engine opens. */
    RangeReplica newReplica(long rangeId);

    /** The engine opened a meta replica here (at start or on create); fails on a node without a meta range. */
    void metaOpened(MetaConsensus.Opened replica);
  }

  private final RaftServer server;
  private final RaftEventLoops loops;
  private final RatisRangeConsensus ranges;
  private final MetaConsensus meta;

  private RatisEngine(RaftServer server, RaftEventLoops loops, RatisRangeConsensus ranges, MetaConsensus meta) {
    this.server = server;
    this.loops = loops;
    this.ranges = ranges;
    this.meta = meta;
  }

  /**
   * Starts the engine; {@code executor} runs the short continuations of membership and leadership calls.
   * Fails (closing what it opened) when the Raft port stays taken or Ratis does not start.
   */
  public static RatisEngine start(Config config, Host host, Executor executor) throws IOException {
    ConnectionNoise.install();
    Parameters parameters = config.tls().map(RatisTls::parameters).orElseGet(Parameters::new);
    RaftEventLoops loops = RaftEventLoops.install(config.nodeId(), config.tuning().transportThreads(), parameters);
    try {
      AtomicReference<RaftServer> built = new AtomicReference<>();
      GroupEventHub events = new GroupEventHub();
      StateMachine.Registry registry = groupId -> {
        if (MetaGroups.isMeta(groupId)) {
          // the meta state machine's own Raft clients (the fetch of the leader's snapshot) use this node's TLS
          MetaStateMachine sm = new MetaStateMachine(MetaLimits.defaults(), parameters);
          host.metaOpened(RatisMetaConsensus.opened(built::get, sm));
          return sm;
        }
        return new RangeStateMachine(host.newReplica(rangeIdOf(groupId)), events);
      };
      // Ratis opens every group directory it finds: dormant ranges' directories are parked first
      ParkedGroups.parkAtStart(host.ranges(), host::dormant, config.raftDir());
      RaftMetrics.withoutJmx();
      RaftServer.Builder builder = RaftServer.newBuilder()
          .setServerId(RaftPeerId.valueOf(config.nodeId()))
          .setProperties(RatisProperties.of(config.tuning(), config.raftDir(), config.host(), config.raftPort()))
          .setStateMachineRegistry(registry)
          .setParameters(parameters)
          .setOption(RaftStorage.StartupOption.RECOVER);
      // A meta replica reopened from its directory alone starts with an empty configuration, and one that
      // is catching up by snapshot then shuts itself down on its first election timeout; with its peers
      // given it does not (Ratis 3.3.0).
      MetaPeersFile.read(config.dataDir()).ifPresent(peers -> builder.setGroup(MetaGroups.group(peers)));
      // Ratis exits the JVM when its port is taken: a port still held (by the previous run of this node
      // closing, or by another process) is waited for a moment, then refused as an error
      RaftPortCheck.awaitFree(config.host(), config.raftPort(), config.portWait());
      RaftServer server = builder.build();
      built.set(server);
      try {
        server.start();
      } catch (IOException | RuntimeException e) {
        server.close();
        throw e;
      }
      return new RatisEngine(server, loops,
          new RatisRangeConsensus(server, new ParkedGroups(server, config.raftDir()), config.requestTimeout(), executor,
              events),
          new RatisMetaConsensus(server, config.dataDir()));
    } catch (IOException | RuntimeException e) {
      loops.close();
      throw e;
    }
  }

  private static long rangeIdOf(RaftGroupId groupId) {
    return RangeGroups.rangeId(groupId)
        .orElseThrow(() -> new IllegalArgumentException("not a range group: " + groupId));
  }

  /** The range groups of this node. */
  public RatisRangeConsensus ranges() {
    return ranges;
  }

  /** The meta range's group of this node. */
  public MetaConsensus meta() {
    return meta;
  }

  /** The Ratis server underneath (for tests that look inside a division). */
  public RaftServer server() {
    return server;
  }

  /** Stops the Ratis server, then the loops it ran on. */
  @Override
  public void close() throws IOException {
    try {
      server.close();
    } finally {
      loops.close();
    }
  }
}
