package dev.rangekv.cli.node;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.logging.LogFormat;
import dev.rangekv.cli.logging.Logs;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.ControllerConfigBuilder;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.node.ClusterIdentity;
import dev.rangekv.server.node.MetaSettings;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.server.node.RangeKvNode;
import dev.rangekv.server.observe.HttpSettings;
import dev.rangekv.storage.StoreOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code rangekv start}: runs one node until SIGTERM / Ctrl-C, when a shutdown hook closes it cleanly
 * (Ratis, gRPC, the store). Without {@code --join} and with an empty data directory it bootstraps a new
 * cluster (the meta range and the first range on itself); with {@code --join} it asks the seeds for their
 * cluster id, then registers with the cluster and the controller gives it replicas. The data directory's
 * identity file (cluster id, node id) is written first; a directory that has one only ever resumes, and
 * is refused under another node id or with a {@code --join} to another cluster. Ports are checked free
 * before the directory is touched.
 */
@Command(name = "start", mixinStandardHelpOptions = true,
    description = "Run a node. Without --join on an empty --data-dir: bootstrap a new cluster. With --join: join one."
        + " Restarting with the same --data-dir resumes. Stops cleanly on SIGTERM / Ctrl-C.")
public final class StartCommand implements Callable<Integer> {
  /** How long bootstrapping or joining may take (a joining node waits for the meta leader to answer). */
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StartCommand.class);

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--node-id", required = true, paramLabel = "ID", description = "unique, stable node id (e.g. n1)")
  String nodeId;

  @Option(names = "--listen", required = true, paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "client gRPC address (KV, admin and meta calls)")
  HostPort listen;

  @Option(names = "--raft-listen", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "Raft (Ratis) address (default: the --listen host, port + 1)")
  HostPort raftListen;

  @Option(names = "--advertise", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "client address other nodes and clients use (default: --listen); with a wildcard --listen"
          + " host, the node binds to the advertised host")
  HostPort advertise;

  @Option(names = "--data-dir", required = true, paramLabel = "DIR", description = "this node's store and Raft logs")
  Path dataDir;

  @Option(names = "--join", split = ",", paramLabel = "HOST:PORT", description = "client addresses of nodes of the cluster to join")
  List<String> join;

  @Option(names = "--http-addr", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "HTTP port for /metrics, /health and the web console (default: the --listen host, client port + 2)")
  HostPort httpAddr;

  @Option(names = "--log-dir", paramLabel = "DIR",
      description = "where the rolling log file goes (default: DATA_DIR/logs)")
  Path logDir;

  @Option(names = "--log-format", defaultValue = "text", paramLabel = "text|json",
      description = "log line format on stderr and in the file: text (ISO-8601 dated lines) or json")
  String logFormat;

  @Option(names = "--zone", defaultValue = "", paramLabel = "ZONE", description = "failure zone (replicas spread over zones)")
  String zone;

  @Option(names = "--dormant-after", defaultValue = "60s", paramLabel = "DURATION",
      converter = dev.rangekv.cli.format.DurationText.class,
      description = "a range without requests for this long goes dormant (its Raft groups close, storage kept; the"
          + " next request wakes it); 0 = never (default: ${DEFAULT-VALUE})")
  Duration dormantAfter;

  @Option(names = "--node-entries-in-flight", defaultValue = "0", paramLabel = "N",
      description = "Raft entries the ranges this node leads may have in flight together: a range that would go"
          + " beyond waits its turn and puts the writes arriving meanwhile into its next entry (group commit"
          + " across ranges, for CPU-bound nodes leading many busy ranges); 0 = no bound (default: ${DEFAULT-VALUE})")
  int nodeEntriesInFlight;

  // the default follows -Drangekv.engine, so a test run that sets it (CONTRIBUTING.md) reaches process nodes too
  @Option(names = "--engine", defaultValue = "${sys:rangekv.engine:-ratis}", paramLabel = "ratis|multiraft",
      description = "EXPERIMENTAL, temporary: the consensus engine of this node's ranges: ratis, or the node-wide"
          + " multi-raft engine (the meta range stays on ratis); every node of a cluster must use the same"
          + " (default: ${DEFAULT-VALUE})")
  String engine;

  @Option(names = "--certs-dir", paramLabel = "DIR", defaultValue = "${env:RANGEKV_CERTS_DIR}",
      description = "serve mutual TLS with DIR/ca.crt, DIR/node.crt and DIR/node.key (rangekv cert);"
          + " default: $RANGEKV_CERTS_DIR")
  Path certsDir;

  @Option(names = "--insecure", description = "serve every port in plaintext and answer anyone who reaches it"
      + " (loopback tests and demos only)")
  boolean insecure;

  // read before parsing, by ConfigFile.expand in main; declared here for --help and the parser
  @Option(names = "--config", paramLabel = "FILE",
      description = "node options from a properties file (see conf/rangekv-node.properties); the command line wins")
  Path config;

  @Option(names = "--label", split = ",", paramLabel = "KEY=VALUE",
      description = "node labels for placement rules beyond the zone, e.g. region=eu,disk=ssd")
  Map<String, String> labels = new java.util.LinkedHashMap<>();

  @Option(names = "--set", paramLabel = "NAME=VALUE",
      description = "a controller setting, e.g. range.max-bytes=1048576, controller.tick=2000 (ms); repeatable")
  Map<String, String> settings;

  @Override
  public Integer call() throws Exception {
    try {
      System.setProperty(dev.rangekv.server.node.EngineChoice.PROPERTY,
          dev.rangekv.server.node.EngineChoice.parse(engine).name().toLowerCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw usage("--engine: " + e.getMessage());
    }
    NodeConfig config = nodeConfig();
    if (config.tls().isEmpty()) {
      log.warn("insecure node: every port (client {}, raft {}, http) is plaintext and serves anyone who reaches it"
          + " (reads, writes, splits, moves, replica drops, span fetches, fake nodes): never let an untrusted network"
          + " reach it", config.clientAddress(), config.raftAddress());
    }
    if (Files.exists(config.dataDir()) && !Files.isDirectory(config.dataDir())) {
      throw usage("--data-dir " + dataDir + " is not a directory");
    }
    // everything below that can refuse does so before the data directory is touched
    Optional<ClusterIdentity> stored = readIdentity(config.dataDir());
    stored.ifPresent(i -> {
      if (!i.nodeId().equals(nodeId)) {
        throw new CliException("data directory " + dataDir + " belongs to node " + i.nodeId() + " (cluster "
            + i.clusterId() + "), not to --node-id " + nodeId + ": refused, nothing changed");
      }
    });
    PortCheck.requireFree(config.host(), config.clientPort(), "--listen");
    PortCheck.requireFree(config.host(), config.raftPort(), "--raft-listen");
    boolean existed = Files.exists(config.dataDir());
    boolean fresh = isEmpty(config.dataDir()); // nothing of this node yet: a failed start removes what it made
    if (stored.isEmpty() && !fresh && join == null) {
      throw new CliException("data directory " + dataDir + " holds files but no identity file (an older version):"
          + " start it with --join to a node of its cluster to adopt that cluster's id, or remove it; nothing changed");
    }
    ClusterIdentity identity = join != null ? joinIdentity(stored) : stored.orElseGet(() -> ClusterIdentity.newCluster(nodeId));
    if (stored.isEmpty()) {
      identity.write(config.dataDir()); // first of all: this directory never bootstraps a cluster again
    }
    LogFormat format = switch (logFormat.toLowerCase(java.util.Locale.ROOT)) {
      case "text" -> LogFormat.TEXT;
      case "json" -> LogFormat.JSON;
      default -> throw usage("--log-format must be text or json, got '" + logFormat + "'");
    };
    Path logs = logDir != null ? logDir : config.dataDir().resolve("logs");
    ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
        org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logs.node(logs, format, root.getLevel());
    PrintWriter out = spec.commandLine().getOut();
    RangeKvNode node;
    try {
      node = RangeKvNode.start(config);
    } catch (IOException | RuntimeException e) {
      if (fresh) {
        deleteFresh(config.dataDir(), existed); // made by this run only: no half-made directory that would "resume"
      }
      throw new CliException("node " + nodeId + " did not start: " + e.getMessage()
          + (fresh ? " (its new data directory was removed)" : ""), e);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      try {
        node.close();
      } finally {
        out.println("node " + nodeId + " stopped");
        out.flush();
        stopped.countDown();
      }
    }, "rangekv-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      if (join != null) {
        node.join(JOIN_TIMEOUT); // registers (again, after a restart) through the seeds in its MetaSettings
      } else if (fresh) {
        node.bootstrapCluster(JOIN_TIMEOUT);
      } // else resumes: it finds the meta range through its meta peers and replica records, and heartbeats
    } catch (IOException | RuntimeException e) {
      if (fresh) {
        Runtime.getRuntime().removeShutdownHook(hook);
        node.close();
        deleteFresh(config.dataDir(), existed);
      }
      throw new CliException("node " + nodeId + (join != null ? " could not join through " + String.join(",", join)
          : " could not bootstrap a cluster") + ": " + e.getMessage()
          + (fresh ? " (its new data directory was removed)" : ""), e);
    }
    String how = !fresh ? "resumed from its data directory (cluster " + identity.clusterId() + ")"
        + (join != null ? " and registered again through " + String.join(",", join) : "")
        : join != null ? "joined the cluster " + identity.clusterId() + " through " + String.join(",", join)
        : "bootstrapped a new cluster " + identity.clusterId();
    out.println("node " + nodeId + " " + how + "; serving clients on " + config.clientAddress() + ", raft on "
        + config.raftAddress() + ", console and metrics on http://" + node.httpAddress().orElse("-") + "/, data in "
        + config.dataDir().toAbsolutePath() + ", logs in " + logs.toAbsolutePath() + ". Ctrl-C stops it.");
    out.flush();
    stopped.await(); // the shutdown hook ends the process after closing the node
    return 0;
  }

  /**
   * Empties a data directory this run filled (it was absent or empty before), and removes it unless it
   * {@code existed}: a failed start leaves no half-made directory that would later "resume".
   */
  private static void deleteFresh(Path dir, boolean existed) {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        if (!existed || !p.equals(dir)) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      // best effort: the refusal itself is what the user needs to see
    }
  }

    private Optional<ClusterIdentity> readIdentity(Path dir) {
    try {
      return Files.isDirectory(dir) ? ClusterIdentity.read(dir) : Optional.empty();
    } catch (RuntimeException e) {
      throw new CliException("data directory " + dataDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * The identity a {@code --join} start runs with: the stored one, unless the seeds answer with another
   * cluster id (refused); for a fresh directory, the seeds' cluster id (refused when nothing answers).
   */
  private ClusterIdentity joinIdentity(Optional<ClusterIdentity> stored) {
    Optional<SeedIdentity.Answer> answer = SeedIdentity.ask(join, nodeTls());
    if (stored.isPresent()) {
      ClusterIdentity mine = stored.get();
      answer.filter(a -> !a.clusterId().isEmpty() && !a.clusterId().equals(mine.clusterId())).ifPresent(a -> {
        throw new CliException("node " + nodeId + " belongs to cluster " + mine.clusterId() + " but --join " + a.address()
            + " is node " + a.nodeId() + " of cluster " + a.clusterId() + ": refused, nothing changed");
      });
      return mine; // the seeds are a hint: unreachable ones do not stop a restart
    }
    SeedIdentity.Answer a = answer.orElseThrow(() -> new CliException("nothing answered at --join "
        + String.join(",", join) + " (no RangeKV node listens there): nothing created"));
    if (a.clusterId().isEmpty()) {
      throw new CliException("--join " + a.address() + " is node " + a.nodeId() + " without a cluster id: nothing created");
    }
    return new ClusterIdentity(a.clusterId(), nodeId);
  }

  NodeConfig nodeConfig() {
    HostPort client = listen;
    if (advertise != null) {
      if (advertise.port() != listen.port() || !(listen.isWildcard() || listen.host().equals(advertise.host()))) {
        throw usage("--advertise " + advertise + " must name the --listen port " + listen.port() + " and, unless --listen"
            + " is a wildcard (0.0.0.0), its host: a node binds and advertises one address");
      }
      client = advertise;
    } else if (listen.isWildcard()) {
      throw usage("--listen " + listen + " is a wildcard: give --advertise HOST:" + listen.port());
    }
    HostPort raft = raftListen != null ? raftListen : new HostPort(client.host(), client.port() + 1);
    if (!raft.host().equals(client.host()) && !raft.isWildcard()) {
      throw usage("--raft-listen host " + raft.host() + " must be the client host " + client.host());
    }
    if (raft.port() == client.port()) {
      throw usage("--raft-listen port must differ from the client port " + client.port());
    }
    if (nodeEntriesInFlight < 0) {
      throw usage("--node-entries-in-flight " + nodeEntriesInFlight + " must be 0 (no bound) or more");
    }
    if (nodeId.isBlank() || !nodeId.matches("[A-Za-z0-9_.-]+")) {
      throw usage("--node-id '" + nodeId + "' must be letters, digits, '_', '.', '-'");
    }
    ControllerConfig controller;
    try {
      ControllerConfigBuilder b = ControllerConfig.builder();
      if (settings != null) {
        settings.forEach(b::set);
      }
      controller = b.build();
    } catch (IllegalArgumentException e) { // InvalidConfigException names every bad setting
      throw usage("--set: " + e.getMessage());
    }
    // the nodes it reaches the meta range through: the join seeds, or itself when it bootstraps the
    // cluster (any node answers meta calls or redirects to the leader, so its own address always works)
    List<String> seeds = join == null ? List.of(client.toString()) : List.copyOf(join);
    for (Map.Entry<String, String> l : labels.entrySet()) {
      try {
        dev.rangekv.core.cluster.LabelConstraint.parse("+" + l.getKey() + "=" + l.getValue()); // same syntax
      } catch (IllegalArgumentException e) {
        throw usage("--label: " + e.getMessage());
      }
      if (l.getKey().equals("zone")) {
        throw usage("--label: the zone is set with --zone");
      }
    }
    MetaSettings meta = MetaSettings.enabled(controller, seeds).withZone(zone).withLabels(labels);
    HostPort http = httpAddr != null ? httpAddr : new HostPort(listen.host(), listen.port() + 2);
    if (http.port() == client.port() || http.port() == raft.port()) {
      throw usage("--http-addr port " + http.port() + " must differ from the client and raft ports");
    }
    NodeConfig config = new NodeConfig(nodeId, client.host(), raft.port(), client.port(), dataDir,
        RaftTuning.defaults().withDormantAfter(dormantAfter == null ? RaftTuning.defaults().dormantAfter() : dormantAfter)
            .withNodeEntriesInFlight(nodeEntriesInFlight),
        StoreOptions.defaults(), meta).withHttp(HttpSettings.on(http.host(), http.port()));
    return nodeTls().map(config::withTls).orElse(config);
  }

  /** The node's TLS files; empty only with {@code --insecure}, which must be asked for. */
  private Optional<TlsFiles> nodeTls() {
    if (insecure && certsDir != null && spec.commandLine().getParseResult().hasMatchedOption("--certs-dir")) {
      throw usage("--certs-dir and --insecure exclude each other");
    }
    if (insecure) {
      return Optional.empty();
    }
    if (certsDir == null) {
      throw usage("no --certs-dir (or RANGEKV_CERTS_DIR): a node serves mutual TLS (make certificates with 'rangekv cert'),"
          + " or give --insecure for a plaintext node open to anyone who reaches it");
    }
    try {
      return Optional.of(TlsFiles.node(certsDir).requireReadable());
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  private static boolean isEmpty(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return true;
    }
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (var entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }
}
