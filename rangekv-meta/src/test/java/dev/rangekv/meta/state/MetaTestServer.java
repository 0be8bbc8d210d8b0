package dev.rangekv.meta.state;

import dev.rangekv.meta.ratis.MetaStateMachine;
import dev.rangekv.meta.ratis.RaftMetaGroup;
import dev.rangekv.meta.ratis.MetaGroups;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One node's Ratis server hosting only the meta group, on loopback, with the node's Ratis settings
 * that matter here (notification-mode install snapshot, as rangekv-server's RaftTuning) and short
 * timeouts for tests.
 */
final class MetaTestServer implements AutoCloseable {
  final String nodeId;
  final int port;
  final Path dir;
  final MetaStateMachine stateMachine = new MetaStateMachine();
  final RaftServer server;
  final RaftMetaGroup group;

  /** Starts a server; formats the meta group on {@code group} when present, else recovers it from disk. */
  MetaTestServer(String nodeId, int port, Path dir, Optional<RaftGroup> group) throws IOException {
    this(nodeId, port, dir, group,
        group.isPresent() ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER, false);
  }

  /**
   * {@code purgeEagerly}: small log segments, purged up to each snapshot even past a follower. A
   * recovered group given here keeps its peers as the initial configuration (see the report: a
   * division recovered without them has an empty one until it replays its log, and campaigning then
   * shuts it down as not in the configuration).
   */
  MetaTestServer(String nodeId, int port, Path dir, Optional<RaftGroup> group, RaftStorage.StartupOption option,
      boolean purgeEagerly) throws IOException {
    this.nodeId = nodeId;
    this.port = port;
    this.dir = dir;
    RaftServer.Builder b = RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(nodeId))
        .setProperties(properties(dir, port, purgeEagerly))
        .setStateMachineRegistry(gid -> {
          if (!MetaGroups.isMeta(gid)) {
            throw new IllegalArgumentException("not the meta group: " + gid);
          }
          return stateMachine;
        });
    group.ifPresent(b::setGroup);
    this.server = b.setOption(option).build();
    server.start();
    this.group = new RaftMetaGroup(server, stateMachine);
  }

  static RaftProperties properties(Path dir, int port, boolean purgeEagerly) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(dir.resolve("groups").toFile()));
    RaftServerConfigKeys.setRemovedGroupsDir(p, new File(dir.toFile(), "removed-groups"));
    GrpcConfigKeys.Server.setHost(p, "127.0.0.1");
    GrpcConfigKeys.Server.setPort(p, port);
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, TimeDuration.valueOf(50, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, TimeDuration.valueOf(150, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setCreationGap(p, 1);
    if (purgeEagerly) {
      RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("16KB"));
      RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf("16KB"));
      RaftServerConfigKeys.Log.setPurgeGap(p, 1);
      RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    }
    return p;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static void await(BooleanSupplier condition, String what) {
    dev.rangekv.testkit.Await.until(Duration.ofSeconds(20), Duration.ofMillis(20), what, condition);
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
