package dev.rangekv.client.it;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.client.routing.CacheFold;
import dev.rangekv.client.routing.RetryPolicy;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testcluster.NodeListings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;

/**
 * An in-JVM {@link LocalCluster} (3 nodes unless told) for client integration tests, with admin helpers
 * that split the range holding a key on its leader and list the cluster's current ranges.
 */
final class TestCluster implements AutoCloseable {
  final LocalCluster cluster;
  /** Splits on a range's leader, with the nodes' own listings (of the running nodes only). */
  private final ClusterRouter router;
  private final NodeListings listings;

  TestCluster(Path dir) throws IOException {
    this(dir, 3);
  }

  /** {@code size} nodes; the first range starts on the first three. */
  TestCluster(Path dir, int size) throws IOException {
    this(dir, size, RaftTuning.forTests());
  }

  /** {@code size} nodes with {@code tuning}; the first range starts on the first three. */
  TestCluster(Path dir, int size, RaftTuning tuning) throws IOException {
    this.cluster = LocalCluster.start(size, dir, tuning);
    // a split waits at most 20 s for a leader to take it
    this.router = new ClusterRouter(this::running, Duration.ofSeconds(20), cluster::splitChildId);
    this.listings = router.listings();
  }

  /**
   * The current tiling as the running nodes report it: every replica's descriptor folded by generation
   * (a lagging replica's older descriptor loses), placeholders where nobody answered.
   */
  RangeMap ranges() {
    List<RangeDescriptor> all = new ArrayList<>();
    for (List<ReplicaStatus> replicas : listings.replicasByNode().values()) {
      replicas.forEach(r -> all.add(ProtoValues.descriptor(r.getRange())));
    }
    return CacheFold.fold(List.of(), all);
  }

  /** The client addresses of the running nodes, in node order. */
  private List<String> running() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.isRunning(i)) {
        out.add(cluster.config(i).clientAddress());
      }
    }
    return out;
  }

  List<String> seeds() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      out.add(cluster.config(i).clientAddress());
    }
    return out;
  }

  /**
   * Options for tests on a shared 2-core box: the default bound of 10 attempts, but backoff from 50 ms up
   * to 2 s, so the bound spans a new child range's group creation and first election after a split
   * (seconds when the box is busy).
   */
  static ClientOptions options() {
    return ClientOptions.defaults().withTimeout(Duration.ofSeconds(30))
        .withRetry(new RetryPolicy(10, Duration.ofMillis(50), Duration.ofSeconds(2)));
  }

  /** A client of this cluster, once the first range has a leader that serves reads. */
  RangeKvClient client() {
    RangeKvClient c = RangeKvClient.connect(seeds(), options());
    awaitServing(c);
    return c;
  }

  /** The index of the node leading the range that holds {@code key}, by its own account. */
  int leaderIndexOf(Key key) {
    return seeds().indexOf(listings.awaitLeader(key, Duration.ofSeconds(20)));
  }

  /** Waits (bounded) until a read through {@code c} succeeds: the cluster elected its first leaders. */
  static void awaitServing(RangeKvClient c) {
    // each read already retries with backoff (the client's retry policy); a failed one is tried again
    Awaitility.await("the first read served").atMost(Duration.ofSeconds(60)).pollInSameThread()
        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).ignoreExceptionsInstanceOf(RangeKvException.class)
        .until(() -> {
          c.get(Key.utf8("ready?"));
          return true;
        });
  }

  /** Splits the range holding {@code at} on its leader (unless {@code at} is already a boundary: null); retries until done. */
  SplitRangeResponse split(Key at) {
    return router.split(at).orElse(null);
  }

  @Override
  public void close() {
    router.close();
    cluster.close();
  }
}
