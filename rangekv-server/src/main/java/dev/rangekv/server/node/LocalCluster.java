package dev.rangekv.server.node;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.ReportedRange;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.observe.HttpSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Several nodes in one JVM on free loopback ports, each under its own directory of {@code baseDir}:
 * for tests and the demo. Bootstraps the first range {@code ["", +inf)} on the first min(3, n) nodes.
 * Nodes can be stopped abruptly and restarted on the same ports and data. Not thread-safe.
 */
public final class LocalCluster implements AutoCloseable {
  private final List<NodeConfig> configs;
  private final List<RangeKvNode> nodes;
  /** Range ids of a cluster without a meta range, handed out by {@link #splitChildId}. */
  private final java.util.concurrent.atomic.AtomicReference<RangeIds> metaLessIds =
      new java.util.concurrent.atomic.AtomicReference<>(RangeIds.initial());

  private LocalCluster(List<NodeConfig> configs) {
    this.configs = List.copyOf(configs);
    this.nodes = new ArrayList<>();
  }

  /**
   * Starts {@code size} nodes and bootstraps the first range, without a meta range or controller:
   * ranges split, move and merge only when told to (the low-level protocol tests).
   */
  public static LocalCluster start(int size, Path baseDir, RaftTuning tuning) throws IOException {
    return start(size, baseDir, tuning, Optional.empty());
  }

  /**
   * Starts {@code size} nodes with the meta range on the first min(3, n) of them and the controller
   * (with {@code controller}'s thresholds) on its leader: the cluster splits, merges and moves ranges
   * by itself.
   */
  public static LocalCluster start(int size, Path baseDir, RaftTuning tuning, ControllerConfig controller)
      throws IOException {
    return start(size, baseDir, tuning, Optional.of(controller));
  }

  private static LocalCluster start(int size, Path baseDir, RaftTuning tuning, Optional<ControllerConfig> controller)
      throws IOException {
    return start(size, baseDir, tuning, controller, HttpSettings.on("127.0.0.1", 0));
  }

  /**
   * Starts {@code size} nodes as above, with the controller when {@code controller} is present, and
   * each node's HTTP port (metrics, health, console) as {@code http} says: {@link HttpSettings#DISABLED}
   * runs the nodes without metrics (the overhead benchmark's baseline).
   */
  public static LocalCluster start(int size, Path baseDir, RaftTuning tuning, Optional<ControllerConfig> controller,
                                   HttpSettings http) throws IOException {
    return start(size, baseDir, tuning, controller, http, List.of());
  }

  /**
   * Starts one node per entry of {@code zones} (node {@code i} in zone {@code zones.get(i)}) with the
   * meta range and the controller, as {@link #start(int, Path, RaftTuning, ControllerConfig)} does.
   */
  public static LocalCluster startZoned(List<String> zones, Path baseDir, RaftTuning tuning, ControllerConfig controller)
      throws IOException {
    return start(zones.size(), baseDir, tuning, Optional.of(controller), HttpSettings.on("127.0.0.1", 0), zones);
  }

  private static LocalCluster start(int size, Path baseDir, RaftTuning tuning, Optional<ControllerConfig> controller,
                                   HttpSettings http, List<String> zones) throws IOException {
    List<NodeConfig> configs = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      configs.add(NodeConfig.loopback("n" + (i + 1), baseDir.resolve("n" + (i + 1))).withTuning(tuning).withHttp(http));
    }
    List<String> seeds = configs.stream().map(NodeConfig::clientAddress).toList();
    if (controller.isPresent()) {
      for (int i = 0; i < size; i++) {
        configs.set(i, configs.get(i).withMeta(MetaSettings.enabled(controller.get(), seeds)
            .withZone(zones.isEmpty() ? "" : zones.get(i))));
      }
    }
    LocalCluster cluster = new LocalCluster(configs);
    String clusterId = java.util.UUID.randomUUID().toString();
    try {
      for (NodeConfig c : configs) {
        if (ClusterIdentity.read(c.dataDir()).isEmpty()) { // the same cluster id everywhere, as joining gives it
          new ClusterIdentity(clusterId, c.nodeId()).write(c.dataDir());
        }
        cluster.nodes.add(RangeKvNode.start(c));
      }
      List<RangeKvNode> first = cluster.nodes.subList(0, Math.min(3, size));
      List<RaftReplica> replicas = first.stream().map(RangeKvNode::replica).toList();
      RangeDescriptor root = new RangeDescriptor(RangeIds.ROOT, Key.EMPTY, RangeEnd.INFINITY,
          replicas.stream().map(RaftReplica::getNodeId).toList(), 0);
      for (RangeKvNode n : first) {
        n.bootstrap(root, replicas);
      }
      if (controller.isPresent()) {
        for (RangeKvNode n : first) {
          n.hostMeta(first);
        }
        Map<String, String> addresses = new HashMap<>();
        root.replicas().forEach(id -> addresses.put(id, cluster.config(cluster.indexOf(id)).clientAddress()));
        awaitMetaLeader(first).metaNode().bootstrap(List.of(new ReportedRange(root, addresses)),
            cluster.nodes.stream().map(n -> NodeProtos.node(n.record())).toList(), Duration.ofSeconds(60));
      }
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static RangeKvNode awaitMetaLeader(List<RangeKvNode> hosts) throws IOException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < end) {
      for (RangeKvNode n : hosts) {
        if (n.metaNode().group().map(MetaGroup::isLeader).orElse(false)) {
          return n;
        }
      }
      try {
        Thread.sleep(20); // the first election: no event to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for the meta leader", e);
      }
    }
    throw new IOException("the meta range elected no leader within 60 s");
  }

  /**
   * The {@code child_range_id} a test's or tool's split request should carry: 0 when the cluster runs
   * the meta range (the range's leader then asks it for one); else the next id of this cluster's own
   * counter, since a cluster without a meta range has no one to grant ids (its nodes refuse a split
   * that names none). Thread-safe.
   */
  public long splitChildId() {
    if (configs.get(0).meta().isEnabled()) {
      return 0;
    }
    return metaLessIds.getAndUpdate(ids -> ids.grant(1).after()).next();
  }

  public int size() {
    return configs.size();
  }

  /** The running node {@code i} (0-based); fails if it is stopped. */
  public RangeKvNode node(int i) {
    RangeKvNode n = nodes.get(i);
    if (n == null) {
      throw new IllegalStateException("node " + configs.get(i).nodeId() + " is stopped");
    }
    return n;
  }

  public boolean isRunning(int i) {
    return nodes.get(i) != null;
  }

  public int indexOf(String nodeId) {
    for (int i = 0; i < configs.size(); i++) {
      if (configs.get(i).nodeId().equals(nodeId)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no node " + nodeId);
  }

  public NodeConfig config(int i) {
    return configs.get(i);
  }

  /** Stops node {@code i} at once (its data stays for {@link #restart}). */
  public void stop(int i) {
    RangeKvNode n = nodes.set(i, null);
    if (n != null) {
      n.close();
    }
  }

  /** Restarts a stopped node on its old ports and data. */
  public RangeKvNode restart(int i) {
    if (nodes.get(i) != null) {
      throw new IllegalStateException("node " + configs.get(i).nodeId() + " is running");
    }
    try {
      RangeKvNode n = RangeKvNode.start(configs.get(i));
      nodes.set(i, n);
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Stops every running node, all at once: a node's stop waits up to a second for Ratis' log workers
   * (each polls its queue for 1 s, and its close waits for the poll to end), so closing one node after
   * another cost a second per node.
   */
  @Override
  public void close() {
    List<Thread> closers = new ArrayList<>();
    List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < nodes.size(); i++) {
      RangeKvNode n = nodes.set(i, null);
      if (n == null) {
        continue;
      }
      Thread t = new Thread(() -> {
        try {
          n.close();
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }, "close-" + n.nodeId());
      t.start();
      closers.add(t);
    }
    boolean interrupted = false;
    for (Thread t : closers) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // every node is stopped before close returns
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (!failures.isEmpty()) {
      RuntimeException first = failures.get(0);
      failures.subList(1, failures.size()).forEach(first::addSuppressed);
      throw first;
    }
  }
}
