package dev.rangekv.server.node;

import dev.rangekv.core.dormancy.DormancyPolicy;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.meta.state.ReportedRange;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RaftReplicaList;
import dev.rangekv.server.console.Console;
import dev.rangekv.server.dormancy.DormancyTicker;
import dev.rangekv.server.dormancy.DormantGroups;
import dev.rangekv.server.dormancy.RangeWaker;
import dev.rangekv.server.merge.GrpcMergePeers;
import dev.rangekv.server.merge.MergeCoordinator;
import dev.rangekv.server.merge.Scheduling;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.meta.MetaNode;
import dev.rangekv.server.meta.MetaRedirect;
import dev.rangekv.server.move.GrpcReplicaPeers;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.move.MoveOptions;
import dev.rangekv.server.move.ReplicaChanges;
import dev.rangekv.server.move.SpanFetcher;
import dev.rangekv.server.move.SpanSource;
import dev.rangekv.server.observe.GrpcMetrics;
import dev.rangekv.server.observe.HttpSettings;
import dev.rangekv.server.observe.LeaderCount;
import dev.rangekv.server.observe.MetaLeaderSampler;
import dev.rangekv.server.observe.NodeHttp;
import dev.rangekv.server.observe.NodeMetrics;
import dev.rangekv.server.observe.Readiness;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.MetaConsensus;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.raft.ProposalBuffers;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.multiraft.MultiRaftEngine;
import dev.rangekv.server.ratis.RaftMetrics;
import dev.rangekv.server.ratis.RatisEngine;
import dev.rangekv.server.rpc.ClusterIdentityServiceImpl;
import dev.rangekv.server.rpc.InputLimits;
import dev.rangekv.server.rpc.KvServiceImpl;
import dev.rangekv.server.rpc.NodeAdminServiceImpl;
import dev.rangekv.server.rpc.ReplicaListing;
import dev.rangekv.server.rpc.ReplicaServiceImpl;
import dev.rangekv.server.security.NodeTls;
import dev.rangekv.server.split.RangeIdSource;
import dev.rangekv.server.split.SplitApplier;
import dev.rangekv.server.split.SplitProposer;
import dev.rangekv.server.stats.HeartbeatBuilder;
import dev.rangekv.server.stats.LoadRecorder;
import dev.rangekv.server.stats.StoreTailBaselines;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.WriteBatchBuilder;
import io.grpc.Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RangeKV node: a store, a consensus engine running one group per range replica and the meta range's
 * group (the Ratis adapter, {@link RatisEngine}: the one place this node names it; or the multi-raft engine,
 * {@link EngineChoice}), and a gRPC server for clients and admin on its
 * own port. Starting it reopens every replica it held (the engine finds the
 * group directories; each state machine reads its range record from the store, which is therefore
 * opened first), then reconciles records with running groups.
 */
public final class RangeKvNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RangeKvNode.class);
  /** How often stored range records are reconciled with running groups. */
  static final long RECONCILE_MILLIS = 5_000;
  /** How often the node's dormancy loop looks at the ranges it leads. */
  static final Duration DORMANCY_TICK = Duration.ofSeconds(1);
  /** How long a start waits for its Raft port to be free before it fails. */
  private static final Duration RAFT_PORT_WAIT = Duration.ofSeconds(10);
  /**
   * Stripe threads of the multi-raft engine: fixed, whatever the number of ranges. One: with cycles aligned
   * on the synced write, one stripe lets all of a node's ranges share each cycle's fsync and envelopes
   * (BENCHMARKS.md, "Cycles aligned on the synced write": 3,153 against 2,443 updates/s with two at 64
   * ranges on the 2-core benchmark machine, even at 8); {@code -Drangekv.multiraft.stripes=N} overrides it.
   */
  private static final int MULTIRAFT_STRIPES = Math.max(1, Integer.getInteger("rangekv.multiraft.stripes", 1));

  private final NodeConfig config;
  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final RatisEngine engine;
  /** Null unless {@link EngineChoice#MULTIRAFT}: then it runs the range groups and the meta range's group. */
  private final MultiRaftEngine multiRaft;
  private final RangeConsensus consensus;
  private final NodeExecutors executors;
  private final GroupReconciler reconciler;
  private final Server grpcServer;
  private final PeerChannels channels;
  /** Empty: an insecure node (plaintext ports, no caller checks). */
  private final Optional<NodeTls> tls;
  private final String clusterId;
  private final SpanCompactor compactor;
  private final MetaNode meta;
  private final RaftGateway gateway;
  private final RangeWaker waker;
  private final HeartbeatBuilder heartbeats;
  /** Null when {@link HttpSettings#DISABLED}: no meters, no interceptor, no HTTP port. */
  private final NodeMetrics metrics;
  private final NodeHttp http;
  private final NodeHealth health;
  /** Where the meta range's peers listen, for the multi-raft engine's streams ({@link MetaPeerAddresses}). */
  private final MetaPeerAddresses metaPeers;
  private boolean closed;

  private RangeKvNode(NodeConfig config) throws IOException {
    this.config = config;
    // checked before anything is created or opened: a directory of another node stays as it is
    Optional<ClusterIdentity> identity = ClusterIdentity.read(config.dataDir());
    identity.ifPresent(i -> i.requireNode(config.nodeId(), config.dataDir()));
    this.clusterId = identity.map(ClusterIdentity::clusterId).orElse("");
    this.tls = config.tls().map(NodeTls::load);
    StartupUndo undo = new StartupUndo();
    try {
      this.channels = PeerChannels.ofCluster(clusterId, tls.map(NodeTls::client));
      undo.onFailure(channels::close);
      Files.createDirectories(config.dataDir());
      this.metaPeers = new MetaPeerAddresses(config.dataDir());
      this.store = NodeStore.open(config.dataDir().resolve("store"), config.storeOptions());
      undo.onFailure(store::close);
      dev.rangekv.server.replica.RestoreStaging.sweepAtStart(store); // before any staging can start
      this.directory = new ReplicaDirectory(store);
      directory.identify(config.nodeId());
      this.compactor = new SpanCompactor(store, config.nodeId());
      undo.onFailure(compactor::close);
      directory.onSpanDeleted(compactor::deleted);
      this.meta = config.meta().controller()
          .map(c -> new MetaNode(config.nodeId(), c, config.meta().moveBytesPerSecond(), channels,
              () -> MetaLocator.candidateAddresses(config.meta().seeds(), config.clientAddress(), directory.knownClientAddresses()),
              WallClock::millis))
          .orElse(null);
      this.health = new NodeHealth(store, Optional.ofNullable(meta));
      this.executors = NodeExecutors.start(config.nodeId());
      undo.onFailure(executors::shutdownNow);
      this.engine = RatisEngine.start(new RatisEngine.Config(config.nodeId(), config.host(), config.raftPort(),
          config.dataDir().resolve("raft"), config.dataDir(), config.tuning().engine(), config.tls(), RAFT_PORT_WAIT,
          Duration.ofSeconds(10)), new RatisEngine.Host() {
            @Override
            public Iterable<Long> ranges() {
              return store.allRangeStates().stream().map(RangeLocalState::rangeId).toList();
            }

            @Override
            public boolean dormant(long rangeId) {
              return DormancyRecord.dormantAt(store, rangeId).isPresent();
            }

            @Override
            public dev.rangekv.server.replica.RangeReplica newReplica(long rangeId) {
              return directory.newReplica(rangeId);
            }

            @Override
            public void metaOpened(MetaConsensus.Opened replica) {
              if (meta == null) {
                throw new IllegalStateException("node " + config.nodeId() + " runs without a meta range but holds a meta replica");
              }
              meta.opened(replica);
            }
          }, executors.moves());
      undo.onFailure(engine::close);
      this.multiRaft = EngineChoice.current() == EngineChoice.MULTIRAFT ? startMultiRaft() : null;
      if (multiRaft != null) {
        undo.onFailure(multiRaft::close);
      }
      this.consensus = multiRaft != null ? multiRaft : engine.ranges();
      LeaderCount leaders = new LeaderCount();
      consensus.addListener(leaders);
      ScheduledExecutorService groupExecutor = executors.groups();
      ExecutorService moveExecutor = executors.moves();
      this.reconciler = new GroupReconciler(config.nodeId(), consensus, store, directory, groupExecutor);
      directory.onChildRecorded(reconciler::ensure);
      reconciler.start(RECONCILE_MILLIS);
      this.gateway = new RaftGateway(consensus, directory);
      InputLimits limits = InputLimits.defaults();
      Path transfers = config.dataDir().resolve("transfers");
      SpanFetcher.clearStaged(transfers);
      MoveOptions moveOptions = MoveOptions.defaults();
      SpanFetcher fetcher = new SpanFetcher(store, directory, channels, transfers, moveExecutor);
      directory.onFetchSpan(fetcher::fetch);
      LocalReplicas local = new LocalReplicas(consensus, store, directory, fetcher, replica());
      SpanSource source = new SpanSource(store, directory, transfers, moveExecutor, moveOptions);
      ReplicaChanges changes = new ReplicaChanges(consensus, gateway, directory, new GrpcReplicaPeers(channels, directory),
          local, moveExecutor, moveOptions);
      MergeCoordinator merges = new MergeCoordinator(consensus, gateway, directory, local,
          new GrpcMergePeers(channels, directory), new Scheduling(moveExecutor, groupExecutor, System::nanoTime),
          moveOptions);
      ProposalBuffers proposals = new ProposalBuffers(gateway,
          ProposalBuffers.Limits.forNode(config.tuning().nodeEntriesInFlight(), System.getProperties()), groupExecutor);
      RangeWaker.Node dormancyNode = new RangeWaker.Node(config.nodeId(), store, directory, consensus,
          new DormantGroups(consensus, directory), channels, gateway, groupExecutor,
          WallClock::millis);
      this.waker = new RangeWaker(dormancyNode);
      gateway.onDormant(rangeId -> {
        if (DormancyRecord.dormantAt(store, rangeId).isEmpty() || directory.replicaRecord(rangeId).isEmpty()) {
          return false;
        }
        waker.wake(rangeId, true);
        return true;
      });
      DormancyPolicy dormancyPolicy = new DormancyPolicy(config.tuning().dormantAfter().toMillis());
      // the window in which a live follower answered the leader's last two heartbeats: Ratis heartbeats every
      // half minimum timeout; the multi-raft engine every heartbeat period, and its follower silences come
      // from a report up to one dormancy tick old (at the Ratis window, 200 ranges took minutes to go
      // dormant on it: ManyDormantRangesIT)
      Duration answerWindow = multiRaft == null ? config.tuning().rpcTimeoutMin()
          : multiRaft.heartbeatPeriod().multipliedBy(2).plus(DORMANCY_TICK);
      DormancyTicker dormancy = new DormancyTicker(dormancyNode, waker, proposals, new DormancyTicker.Settings(
          dormancyPolicy, answerWindow, config.tuning().rpcTimeoutMax().multipliedBy(2)), executors.closes());
      directory.onDormancyApplied(dormancy::applied);
      dormancy.start(DORMANCY_TICK);
      LoadRecorder load = LoadRecorder.create(new StoreTailBaselines(directory, store), System.nanoTime());
      this.metrics = config.http().enabled() ? new NodeMetrics(config.nodeId(), store, new NodeMetrics.Source() {
        @Override
        public int replicas() {
          return directory.replicas().size();
        }

        @Override
        public int leaders() {
          return leaders.count();
        }
      }, registry -> new RaftMetrics(config.nodeId(), registry,
          multiRaft == null ? dev.rangekv.server.consensus.EngineTimers.NONE : multiRaft.timers())) : null;
      if (metrics != null) {
        undo.onFailure(metrics::close);
        directory.onApplied(metrics.raft()::applied);
        if (multiRaft != null) {
          metrics.bindMultiRaft(multiRaft::figures);
        }
      }
      // bound (not yet serving) before the heartbeats are built: they carry its address to the meta range
      this.http = metrics == null ? null
          : NodeHttp.bind(config.nodeId(), config.http().host(), config.http().port(), metrics, health);
      if (http != null) {
        undo.onFailure(http::close);
      }
      this.heartbeats = new HeartbeatBuilder(new HeartbeatBuilder.Self(config.nodeId(), config.clientAddress(),
          config.raftAddress(), config.meta().zone(), config.dataDir(), http == null ? "" : http.address(),
          config.meta().labels()),
          consensus, directory, store, load);
      GrpcMetrics grpcMetrics = metrics == null ? null : new GrpcMetrics(metrics.registry());
      List<io.grpc.ServerServiceDefinition> services = new java.util.ArrayList<>(List.of(
              new KvServiceImpl(gateway, proposals, limits, load, executors.kv(),
                  grpcMetrics == null ? (method, outcome, nanos) -> { } : grpcMetrics.streamCalls(), waker::awake,
                  new ReplicaListing(config.nodeId(), consensus, directory, store)).bindService(),
              new NodeAdminServiceImpl(limits, changes, merges, new SplitProposer(new NodeSplitHost(directory,
                  gateway), store, meta != null ? meta.rangeIds(moveExecutor) : RangeIdSource.absent(),
                  waker::splitApplied), dormancyPolicy).bindService(),
              new ReplicaServiceImpl(local, source, gateway, moveExecutor, this::prepareMetaReplica)
                  .onWake(rangeId -> waker.wake(rangeId, false).handle((v, e) -> e == null))
                  .onOpen(waker::openForPeer).bindService(),
              meta != null ? meta.service() : MetaRedirect.service(() -> ""),
              meta != null ? meta.nodeService()
                  : MetaRedirect.service(MetaNodeServiceGrpc.getServiceDescriptor(), () -> ""),
              new ClusterIdentityServiceImpl(clusterId, config.nodeId()).bindService(),
              new dev.rangekv.server.backup.BackupServiceImpl(store, directory, source, gateway, moveExecutor).bindService()));
      if (multiRaft != null) {
        services.add(multiRaft.service().bindService());
      }
      this.grpcServer = NodeGrpcServer.start(config, tls, Optional.ofNullable(grpcMetrics), clusterId, health.grpc(),
          executors.kv(), services);
      undo.onFailure(grpcServer::shutdownNow);
      if (meta != null) {
        meta.rememberVoters(KnownVotersFile.read(config.dataDir()), v -> KnownVotersFile.write(config.dataDir(), v));
        undo.onFailure(meta::close);
        // on the multi-raft engine the meta range's group runs there too; reopened now if it held one
        MetaConsensus metaConsensus = multiRaft == null ? engine.meta() : multiRaft.meta(meta::opened, moveExecutor);
        meta.start(metaConsensus, this::heartbeat, () -> { }); // the engine forgot the meta voters already
        if (multiRaft != null) {
          groupExecutor.scheduleWithFixedDelay(this::learnMetaPeers, 0, 5, TimeUnit.SECONDS);
        }
      }
      groupExecutor.scheduleWithFixedDelay(health::publish, 0, 1, TimeUnit.SECONDS);
      if (http != null) {
        if (meta != null) {
          MetaLeaderSampler sampler = new MetaLeaderSampler(meta, metrics.registry());
          groupExecutor.scheduleWithFixedDelay(sampler::sample, meta.tick().toMillis(), meta.tick().toMillis(),
              TimeUnit.MILLISECONDS);
          Console.install(http, meta, sampler.heat());
        }
        http.start();
      }
    } catch (IOException | RuntimeException e) {
      undo.undo(e);
      throw e;
    }
    log.info("node started nodeId={} raftAddress={} clientAddress={} httpAddress={} engine={}", config.nodeId(),
        config.raftAddress(), config.clientAddress(), http == null ? "" : http.address(),
        multiRaft != null ? "multiraft" : "ratis");
  }

  /** The multi-raft engine for this node's range groups, its log database under {@code multiraft-log/}. */
  private MultiRaftEngine startMultiRaft() {
    return MultiRaftEngine.start(new MultiRaftEngine.Config(config.nodeId(), config.dataDir().resolve("multiraft-log"),
        config.tuning().engine(), MULTIRAFT_STRIPES, Duration.ofSeconds(10), executors.moves()), new MultiRaftEngine.Host() {
          @Override
          public Iterable<Long> ranges() {
            return store.allRangeStates().stream().map(RangeLocalState::rangeId).toList();
          }

          @Override
          public boolean dormant(long rangeId) {
            return DormancyRecord.dormantAt(store, rangeId).isPresent();
          }

          @Override
          public dev.rangekv.server.replica.RangeReplica newReplica(long rangeId) {
            return directory.newReplica(rangeId);
          }

          @Override
          public Optional<String> addressOf(String nodeId) {
            if (directory.addressOf(nodeId).isEmpty()) {
              // replica records name every peer with its client address; reading them teaches the directory
              store.allRangeStates().forEach(s -> directory.replicaRecord(s.rangeId()));
            }
            String a = directory.addressOf(nodeId);
            return a.isEmpty() ? metaPeerAddress(nodeId) : Optional.of(a);
          }

          @Override
          public io.grpc.Channel channel(String address) {
            return channels.channel(address);
          }
        });
  }

  /**
   * A meta peer's client address, for a node no replica record here names: from this node's meta state
   * (its node records), else as remembered ({@link MetaPeerAddresses}).
   */
  private Optional<String> metaPeerAddress(String nodeId) {
    Optional<String> fromState = meta == null ? Optional.empty() : meta.group().flatMap(g -> g.view().nodes().stream()
        .filter(n -> n.nodeId().equals(nodeId) && !n.address().isEmpty()).map(n -> n.address()).findFirst());
    return fromState.isPresent() ? fromState : metaPeers.addressOf(nodeId);
  }

  /** Remembers the client addresses of the nodes this node's meta replica records (multi-raft engine). */
  private void learnMetaPeers() {
    meta.group().ifPresent(g -> {
      Map<String, String> addresses = new java.util.HashMap<>();
      g.view().nodes().forEach(n -> addresses.put(n.nodeId(), n.address()));
      metaPeers.learn(addresses);
    });
  }

  /** Whether this node can serve now (see {@link NodeHealth}). */
  public Readiness.Verdict readiness() {
    return health.check();
  }

  /** Starts a node (opening or creating its data directory). */
  public static RangeKvNode start(NodeConfig config) throws IOException {
    return new RangeKvNode(config);
  }

  /**
   * Records {@code range} on {@code replicas} (which include this node) and creates its group, unless
   * this node already holds a record for it: the bootstrap of a new cluster's first range.
   */
  public void bootstrap(RangeDescriptor range, List<RaftReplica> replicas) {
    if (store.rangeState(range.rangeId()).isEmpty()) {
      try (WriteBatchBuilder batch = store.newBatch()) {
        batch.putRangeState(new RangeLocalState(range, 0, 0))
            .localPut(range.rangeId(), SplitApplier.REPLICAS_FIELD,
                RaftReplicaList.newBuilder().addAllReplicas(replicas).build().toByteArray())
            .sync();
        store.write(batch);
      }
      log.info("range bootstrapped rangeId={} replicas={}", range.rangeId(), range.replicas());
    }
    reconciler.ensure(range.rangeId());
  }

  /**
   * Makes this node a new cluster of its own, unless its store holds ranges already (a restart): the
   * first range {@code ["", +inf)} and the meta range, both on this node alone. Others join it; the
   * controller then replicates ranges onto them.
   */
  public void bootstrapCluster(Duration timeout) throws IOException {
    MetaNode m = requireMeta();
    if (!store.allRangeStates().isEmpty()) {
      log.info("cluster bootstrap skipped: the store holds ranges already nodeId={}", config.nodeId());
      return;
    }
    RangeDescriptor root = new RangeDescriptor(RangeIds.ROOT, Key.EMPTY, RangeEnd.INFINITY, List.of(nodeId()), 0);
    bootstrap(root, List.of(replica()));
    hostMeta(List.of(this));
    m.bootstrap(List.of(new ReportedRange(root, Map.of(nodeId(), config.clientAddress()))),
        List.of(NodeProtos.node(record())), timeout);
  }

  /**
   * Creates the meta group on {@code peers} (this node among them); every peer must call it. The
   * first map is then installed with {@link #metaNode()}'s {@code bootstrap} on whichever leads.
   */
  public void hostMeta(List<RangeKvNode> peers) throws IOException {
    Map<String, String> addresses = new java.util.HashMap<>();
    peers.forEach(p -> addresses.put(p.nodeId(), p.config().clientAddress()));
    metaPeers.learn(addresses);
    requireMeta().createGroup(peers.stream().map(p -> new Member(p.nodeId(), p.config().raftAddress())).toList());
  }

  /**
   * Starts an empty meta replica here for the meta leader to add as a voter (the controller grows the
   * meta range onto joined nodes); {@code voters} are recorded first so a restart reopens it with them.
   */
  private void prepareMetaReplica(List<RaftReplica> voters) throws IOException {
    MetaNode m = requireMeta();
    Map<String, String> addresses = new java.util.HashMap<>();
    voters.forEach(v -> addresses.put(v.getNodeId(), v.getClientAddress()));
    metaPeers.learn(addresses);
    m.prepareReplica(Member.of(voters));
  }

  /** Registers this node with the cluster at {@code seeds} (client addresses), waiting up to {@code timeout}. */
  public void join(Duration timeout) {
    requireMeta().register(record(), timeout);
  }

  /** This node as the meta range records it. */
  public NodeRecord record() {
    return NodeRecord.newBuilder().setNodeId(nodeId()).setAddress(config.clientAddress())
        .setRaftAddress(config.raftAddress()).setZone(config.meta().zone()).putAllLabels(config.meta().labels()).build();
  }

  /** This node's part in the meta range; fails on a node configured without one. */
  public MetaNode metaNode() {
    return requireMeta();
  }

  private MetaNode requireMeta() {
    if (meta == null) {
      throw new IllegalStateException("node " + nodeId() + " is configured without a meta range (MetaSettings.DISABLED)");
    }
    return meta;
  }

  /** This node as a replica of a range. */
  public RaftReplica replica() {
    return RaftReplica.newBuilder()
        .setNodeId(config.nodeId())
        .setRaftAddress(config.raftAddress())
        .setClientAddress(config.clientAddress())
        .build();
  }

  public NodeConfig config() {
    return config;
  }

  public String nodeId() {
    return config.nodeId();
  }

  /** The cluster id of this node's data directory; empty when it has no identity file. */
  public String clusterId() {
    return clusterId;
  }

  public ReplicaDirectory directory() {
    return directory;
  }

  /** The consensus engine of this node's range groups. */
  public RangeConsensus consensus() {
    return consensus;
  }

  /** The consensus engine underneath (tests look inside its groups). */
  public RatisEngine engine() {
    return engine;
  }

  public NodeStore store() {
    return store;
  }

  /** Builds heartbeats; each build ends the load interval the previous one started. */
  public HeartbeatBuilder heartbeats() {
    return heartbeats;
  }

  /**
   * This node's heartbeat for the interval since the previous one (see {@link HeartbeatBuilder#build});
   * its led ranges' load also becomes the per-range gauges.
   */
  public HeartbeatRequest heartbeat() {
    HeartbeatRequest hb = heartbeats.build(System.nanoTime());
    if (metrics != null) {
      metrics.ranges().update(hb);
    }
    return hb;
  }

  /** This node's meters; empty when its HTTP port is disabled. */
  public Optional<NodeMetrics> metrics() {
    return Optional.ofNullable(metrics);
  }

  /** The bound HTTP address (host:port) of metrics, health and console; empty when disabled. */
  public Optional<String> httpAddress() {
    return http == null ? Optional.empty() : Optional.of(http.address());
  }

  /** The HTTP port, for the console to add its routes to; empty when disabled. */
  public Optional<NodeHttp> http() {
    return Optional.ofNullable(http);
  }

  /** Stops serving and closes the consensus engine and the store; a node's data survives for a restart. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.stop();
    if (http != null) {
      http.close();
    }
    if (meta != null) {
      meta.close();
    }
    grpcServer.shutdownNow();
    executors.shutdownNow();
    channels.close();
    try {
      if (multiRaft != null) {
        multiRaft.close();
      }
      engine.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing the consensus engine of " + config.nodeId(), e);
    } finally {
      try {
        grpcServer.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      compactor.close();
      store.close();
      if (metrics != null) {
        metrics.close();
      }
      log.info("node stopped nodeId={}", config.nodeId());
    }
  }
}
