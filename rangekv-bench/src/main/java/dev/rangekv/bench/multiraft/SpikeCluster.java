package dev.rangekv.bench.multiraft;

import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.exception.CannotReplicateException;
import io.microraft.exception.IndeterminateStateException;
import io.microraft.exception.NotLeaderException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.rocksdb.RocksDBException;

/**
 * Three in-process spike nodes hosting the same groups (replication 3), each node with its RocksDB in
 * {@code dir/node-N}. Messages travel by reference (not serialised); on the node-wide runtime each
 * stripe cycle hands each peer one envelope.
 */
public final class SpikeCluster {
  static final int NODES = 3;

  private final List<SpikeNode> nodes = new ArrayList<>();
  private final AtomicIntegerArray leaderHint;
  private final Path dir;

  private SpikeCluster(int groups, Path dir) {
    this.leaderHint = new AtomicIntegerArray(groups);
    this.dir = dir;
  }

  /** The Raft settings of every group; a snapshot (an applied-index marker) every 10,000 entries. */
  static RaftConfig config() {
    return RaftConfig.newBuilder().setCommitCountToTakeSnapshot(10_000).setMaxPendingLogEntryCount(1_000).build();
  }

  public static SpikeCluster start(Runtime runtime, int groups, Path dir, boolean releaseBeforeSync)
      throws RocksDBException, java.io.IOException {
    SpikeCluster cluster = new SpikeCluster(groups, dir);
    for (int n = 0; n < NODES; n++) {
      Path nodeDir = Files.createDirectories(dir.resolve("node-" + n));
      cluster.nodes.add(new SpikeNode(n, runtime, groups, nodeDir, NODES,
          (to, envelope) -> cluster.nodes.get(to).deliver(envelope), releaseBeforeSync));
    }
    for (SpikeNode node : cluster.nodes) {
      node.build(NODES, config(), (to, message) -> cluster.nodes.get(to).deliverDirect(message));
    }
    cluster.nodes.forEach(SpikeNode::start);
    return cluster;
  }

  public int groups() {
    return leaderHint.length();
  }

  public Path dir() {
    return dir;
  }

  /** Waits until every group has a leader that every node knows, polling every 10 ms. */
  public void awaitLeaders(Duration timeout) throws TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int g = 0; g < groups(); g++) {
      while (true) {
        RaftEndpoint leader = nodes.get(0).replica(g).getTerm().getLeaderEndpoint();
        boolean agreed = leader != null;
        for (SpikeNode node : nodes) {
          agreed &= leader != null && leader.equals(node.replica(g).getTerm().getLeaderEndpoint());
        }
        if (agreed) {
          leaderHint.set(g, ((NodeEndpoint) leader).node());
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("no leader for group=" + g);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
  }

  /**
   * Writes one put through the group's leader and returns once it is acknowledged, following
   * not-leader hints; an indeterminate answer is retried (a put of the same value is idempotent).
   */
  public void write(int group, byte[] key, byte[] value) throws InterruptedException, TimeoutException {
    PutOp op = new PutOp(key, value);
    for (int attempt = 0; attempt < 100; attempt++) {
      try {
        nodes.get(leaderHint.get(group)).replicate(group, op).get(10, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof NotLeaderException notLeader && notLeader.getLeader() != null) {
          leaderHint.set(group, ((NodeEndpoint) notLeader.getLeader()).node());
        } else if (cause instanceof NotLeaderException || cause instanceof CannotReplicateException
            || cause instanceof IndeterminateStateException) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        } else {
          throw new IllegalStateException("write failed group=" + group, cause);
        }
      }
    }
    throw new TimeoutException("write not acknowledged after 100 attempts group=" + group);
  }

  public NodeCounters counters() {
    NodeCounters sum = new NodeCounters(0, 0, 0, 0, 0, 0, 0);
    for (SpikeNode node : nodes) {
      sum = sum.plus(node.counters());
    }
    return sum;
  }

  /** Stops all nodes without a last sync; their stores are closed and can be checked. */
  public void crash() throws InterruptedException {
    for (SpikeNode node : nodes) {
      node.crash();
    }
  }
}
