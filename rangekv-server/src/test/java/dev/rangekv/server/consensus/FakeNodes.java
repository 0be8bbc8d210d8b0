package dev.rangekv.server.consensus;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RaftReplicaList;
import dev.rangekv.server.node.NodeSplitHost;
import dev.rangekv.server.raft.ProposalBuffers;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.replica.StagedSpan;
import dev.rangekv.server.split.SplitHost;
import dev.rangekv.server.split.SplitApplier;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.StoreOptions;
import dev.rangekv.storage.WriteBatchBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Nodes for unit tests on a {@link FakeCluster}: each has its own store (RocksDB in a temporary
 * directory), replica directory, engine, gateway and proposal buffers, wired as a node wires them; a
 * split child's group is created on a node as soon as the node applied the split (what the node's
 * reconciler does), and a replica being added fetches its span from the leader's node in process.
 */
public final class FakeNodes implements AutoCloseable {
  /**
   * The client address of n1: nothing listens on port 1, so a node-to-node call (a drop, a wake) fails at
   * once, as a call to a node that is down does. Node nK's address is port K ({@link #clientAddress}),
   * as unreachable, and distinct, so that a call naming a node by address finds that node.
   */
  public static final String UNREACHABLE = "127.0.0.1:1";

  /** The client address of node {@code nodeId} ("n" and a number): nothing listens there. */
  public static String clientAddress(String nodeId) {
    return "127.0.0.1:" + Integer.parseInt(nodeId.substring(1));
  }

  /** One node's parts. */
  public record Node(String id, NodeStore store, ReplicaDirectory directory, FakeEngine engine, RaftGateway gateway,
      ProposalBuffers proposals) {
    public RaftReplica replica() {
      return RaftReplica.newBuilder().setNodeId(id).setRaftAddress(id + ":raft").setClientAddress(clientAddress(id))
          .build();
    }

    /** What a split proposer on this node needs: its replicas' descriptors and peers, and its gateway. */
    public SplitHost splitHost() {
      return new NodeSplitHost(directory, gateway);
    }
  }

  private final FakeCluster cluster;
  private final List<Node> nodes = new ArrayList<>();
  /** The proposal buffers' stall timer: idle without a node-wide bound (the default limits). */
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  public FakeNodes(FakeCluster cluster, Path dir, int count) {
    this.cluster = cluster;
    for (int i = 1; i <= count; i++) {
      String id = "n" + i;
      NodeStore store = NodeStore.open(dir.resolve(id), StoreOptions.defaults());
      ReplicaDirectory directory = new ReplicaDirectory(store);
      Path transfers = dir.resolve(id + "-transfers");
      // the span transfer in process: taken from the leader's node, installed into this one's store
      directory.onFetchSpan((rangeId, leaderId) -> node(leaderId).directory().replica(rangeId)
          .filter(r -> r.descriptor().isPresent())
          .<CompletableFuture<StagedSpan>>map(r -> CompletableFuture.completedFuture(
              InProcessSpan.take(r, node(leaderId).store(), store, directory, transfers)))
          .orElseGet(() -> CompletableFuture.failedFuture(new IllegalStateException(
              leaderId + " holds no ready replica of range " + rangeId))));
      FakeEngine engine = cluster.node(id, directory::newReplica);
      RaftGateway gateway = new RaftGateway(engine, directory);
      directory.onChildRecorded(child -> engine.create(child, Member.of(directory.replicaRecord(child))));
      nodes.add(new Node(id, store, directory, engine, gateway,
          new ProposalBuffers(gateway, ProposalBuffers.Limits.defaults(), timer)));
    }
  }

  public FakeCluster cluster() {
    return cluster;
  }

  public List<Node> all() {
    return List.copyOf(nodes);
  }

  public Node node(String id) {
    return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }

  /** The node leading {@code rangeId} now. */
  public Node leaderOf(long rangeId) {
    return node(cluster.leaderOf(rangeId));
  }

  /** Records range 1 over the whole key space on every node, as a bootstrap does, and creates its group. */
  public void bootstrap() {
    bootstrap(nodes.size());
  }

  /** Records range 1 on the first {@code members} nodes only, and creates its group there. */
  public void bootstrap(int members) {
    List<Node> on = nodes.subList(0, members);
    List<RaftReplica> replicas = on.stream().map(Node::replica).toList();
    RangeDescriptor root = new RangeDescriptor(1, Key.EMPTY, RangeEnd.INFINITY,
        on.stream().map(Node::id).toList(), 0);
    for (Node n : on) {
      try (WriteBatchBuilder batch = n.store().newBatch()) {
        batch.putRangeState(new RangeLocalState(root, 0, 0)).localPut(1, SplitApplier.REPLICAS_FIELD,
            RaftReplicaList.newBuilder().addAllReplicas(replicas).build().toByteArray());
        n.store().write(batch);
      }
      n.engine().create(1, Member.of(replicas));
    }
    cluster.run();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    nodes.forEach(n -> n.store().close());
  }
}
