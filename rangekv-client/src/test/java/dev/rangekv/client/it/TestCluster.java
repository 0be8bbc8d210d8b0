package dev.rangekv.client.it;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.client.routing.CacheFold;
import dev.rangekv.client.routing.RetryPolicy;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;

/**
 * An in-JVM {@link LocalCluster} (3 nodes unless told) for client integration tests, with admin helpers
 * that split the range holding a key on its leader and list the cluster's current ranges.
 */
final class TestCluster implements AutoCloseable {
  final LocalCluster cluster;
  private final Map<String, ManagedChannel> admin = new HashMap<>();

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
  }

  /**
   * The current tiling as the running nodes report it: every replica's descriptor folded by generation
   * (a lagging replica's older descriptor loses), placeholders where nobody answered.
   */
  RangeMap ranges() {
    List<RangeDescriptor> all = new ArrayList<>();
    for (List<ReplicaStatus> replicas : replicasByNode().values()) {
      replicas.forEach(r -> all.add(ProtoValues.descriptor(r.getRange())));
    }
    return CacheFold.fold(List.of(), all);
  }

  /**
   * Each running node's replicas by its own account, by node index in order; a node that does not
   * answer (still starting, or stopping) is left out: the others describe its ranges too.
   */
  private Map<Integer, List<ReplicaStatus>> replicasByNode() {
    Map<Integer, List<ReplicaStatus>> out = new java.util.TreeMap<>();
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        continue;
      }
      try {
        out.put(i, kv(cluster.config(i).clientAddress()).listRanges(ListRangesRequest.getDefaultInstance())
            .getReplicasList());
      } catch (RuntimeException e) {
        // a node that does not answer: see above
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
    // polling the nodes' own accounts: a new leader has no event to await
    return Await.value(Duration.ofSeconds(20), Duration.ofMillis(20), "a leader for the range of " + key,
        () -> findLeader(key));
  }

  private Optional<Integer> findLeader(Key key) {
    for (Map.Entry<Integer, List<ReplicaStatus>> node : replicasByNode().entrySet()) {
      for (ReplicaStatus s : node.getValue()) {
        if (s.getLeader() && ProtoValues.descriptor(s.getRange()).contains(key)) {
          return Optional.of(node.getKey());
        }
      }
    }
    return Optional.empty();
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

  /**
   * Polls {@code condition} every 20 ms in the calling thread until it holds; fails with {@code what} after
   * {@code timeout} (cluster state has no event to await).
   */
  static void await(String what, Duration timeout, BooleanSupplier condition) {
    await(what, timeout, Duration.ofMillis(20), condition);
  }

  /** As {@link #await(String, Duration, BooleanSupplier)}, polling every {@code poll}. */
  static void await(String what, Duration timeout, Duration poll, BooleanSupplier condition) {
    Await.until(timeout, poll, what, condition);
  }

  private KvServiceGrpc.KvServiceBlockingStub kv(String address) {
    return KvServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  private NodeAdminServiceGrpc.NodeAdminServiceBlockingStub admin(String address) {
    return NodeAdminServiceGrpc.newBlockingStub(channel(address)).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  private ManagedChannel channel(String address) {
    return admin.computeIfAbsent(address, a -> ManagedChannelBuilder.forTarget(a).usePlaintext().build());
  }

  /** Splits the range holding {@code at} (unless {@code at} is already a boundary); retries until done. */
  SplitRangeResponse split(Key at) {
    RuntimeException[] last = new RuntimeException[1];
    java.util.concurrent.atomic.AtomicReference<Optional<SplitRangeResponse>> done =
        new java.util.concurrent.atomic.AtomicReference<>();
    try {
      // polling for a leader to appear: there is no event to await
      await("split at " + at, Duration.ofSeconds(20), () -> {
        done.set(trySplit(at, last));
        return done.get() != null;
      });
    } catch (AssertionError e) {
      throw new IllegalStateException("could not split at " + at, last[0] != null ? last[0] : e);
    }
    return done.get().orElse(null);
  }

  /** One pass over the nodes: the split's answer, empty when {@code at} is a boundary, null when no leader took it. */
  private Optional<SplitRangeResponse> trySplit(Key at, RuntimeException[] last) {
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        continue;
      }
      String address = cluster.config(i).clientAddress();
      try {
        ListRangesResponse list = kv(address).listRanges(ListRangesRequest.getDefaultInstance());
        for (ReplicaStatus s : list.getReplicasList()) {
          RangeDescriptor d = ProtoValues.descriptor(s.getRange());
          if (!s.getLeader() || !d.contains(at)) {
            continue;
          }
          if (d.start().equals(at)) {
            return Optional.empty();
          }
          return Optional.of(admin(address).splitRange(SplitRangeRequest.newBuilder()
              .setHeader(RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()))
              .setSplitKey(ProtoValues.bytes(at)).setChildRangeId(cluster.splitChildId()).build()));
        }
      } catch (RuntimeException e) {
        last[0] = e;
      }
    }
    return null;
  }

  /** A short pause between steps of a loop that has nothing to do yet (bounded by the caller). */
  static void pause() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    for (ManagedChannel ch : admin.values()) {
      ch.shutdownNow();
    }
    cluster.close();
  }

}
