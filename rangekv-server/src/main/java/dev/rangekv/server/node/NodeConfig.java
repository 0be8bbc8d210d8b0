package dev.rangekv.server.node;

import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.observe.HttpSettings;
import dev.rangekv.storage.StoreOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run one node: its id, listen host, Ratis port, client gRPC port (separate), data directory
 * (store under {@code store/}, Raft logs under {@code raft/}), Ratis tuning, store options, its part
 * in the meta range, its HTTP port (metrics, health, console), and its TLS files (empty: insecure, every
 * port plaintext and open to anyone who reaches it; {@code rangekv start} asks for that explicitly).
 */
public record NodeConfig(
    String nodeId,
    String host,
    int raftPort,
    int clientPort,
    Path dataDir,
    RaftTuning tuning,
    StoreOptions storeOptions,
    MetaSettings meta,
    HttpSettings http,
    Optional<TlsFiles> tls) {

  public NodeConfig {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(tuning, "tuning");
    Objects.requireNonNull(storeOptions, "storeOptions");
    Objects.requireNonNull(meta, "meta");
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(tls, "tls");
    if (nodeId.isEmpty() || raftPort <= 0 || clientPort <= 0 || raftPort == clientPort) {
      throw new IllegalArgumentException("bad node config id=" + nodeId + " raftPort=" + raftPort + " clientPort=" + clientPort);
    }
  }

  /** A node without an HTTP port or metrics ({@link HttpSettings#DISABLED}); {@link #withHttp} adds them. */
  public NodeConfig(String nodeId, String host, int raftPort, int clientPort, Path dataDir, RaftTuning tuning,
                    StoreOptions storeOptions, MetaSettings meta) {
    this(nodeId, host, raftPort, clientPort, dataDir, tuning, storeOptions, meta, HttpSettings.DISABLED, Optional.empty());
  }

  /** A loopback node on two free ports with default tuning, and metrics on a free HTTP port. */
  public static NodeConfig loopback(String nodeId, Path dataDir) {
    return new NodeConfig(nodeId, "127.0.0.1", freePort(), freePort(), dataDir, RaftTuning.defaults(), StoreOptions.defaults(),
        MetaSettings.DISABLED, HttpSettings.on("127.0.0.1", 0), Optional.empty());
  }

  public NodeConfig withTuning(RaftTuning t) {
    return new NodeConfig(nodeId, host, raftPort, clientPort, dataDir, t, storeOptions, meta, http, tls);
  }

  public NodeConfig withStoreOptions(StoreOptions o) {
    return new NodeConfig(nodeId, host, raftPort, clientPort, dataDir, tuning, o, meta, http, tls);
  }

  public NodeConfig withMeta(MetaSettings m) {
    return new NodeConfig(nodeId, host, raftPort, clientPort, dataDir, tuning, storeOptions, m, http, tls);
  }

  public NodeConfig withHttp(HttpSettings h) {
    return new NodeConfig(nodeId, host, raftPort, clientPort, dataDir, tuning, storeOptions, meta, h, tls);
  }

  /** This node serving mutual TLS with {@code files}. */
  public NodeConfig withTls(TlsFiles files) {
    return new NodeConfig(nodeId, host, raftPort, clientPort, dataDir, tuning, storeOptions, meta, http, Optional.of(files));
  }

  public String raftAddress() {
    return host + ":" + raftPort;
  }

  public String clientAddress() {
    return host + ":" + clientPort;
  }

  /**
   * A free loopback port, never one this JVM handed out before: several nodes of a {@code LocalCluster}
   * pick ports before any binds, and the OS may offer a just-released port twice. (Ratis' gRPC server
   * exits the JVM when its bind fails, so a duplicate is fatal, not an error.) Drawn at random below the
   * OS's ephemeral range (Linux 32768-60999, others higher): a port the OS hands out for port 0 is also
   * what it gives the next outbound connection, of this JVM or of a test run beside it, between the pick
   * and the bind ("Address already in use").
   */
  public static int freePort() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = random.nextInt(PICKED_PORTS_FROM, PICKED_PORTS_TO);
      if (!HANDED_OUT.contains(port) && bindable(InetAddress.getLoopbackAddress().getHostAddress(), port) && HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free loopback port in [" + PICKED_PORTS_FROM + ", " + PICKED_PORTS_TO
        + ") that this JVM has not handed out already");
  }

  /** Whether {@code host:port} can be bound now (a probe: the port may be taken again right after). */
  static boolean bindable(String host, int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new java.net.InetSocketAddress(host, port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }


  private static final int PICKED_PORTS_FROM = 20_000;
  private static final int PICKED_PORTS_TO = 32_000;
  private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();
}
