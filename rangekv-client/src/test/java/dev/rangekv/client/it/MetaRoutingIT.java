package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.routing.CacheFold;
import dev.rangekv.client.routing.NodeListRangeSource;
import dev.rangekv.client.routing.RouteStats;
import dev.rangekv.client.routing.RouteTable;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.server.raft.PeerChannels;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routes from the meta range on a 3-node LocalCluster with 16 ranges: what a cache miss costs with the
 * meta range as the source versus the nodes' listings, that concurrent misses share one lookup, and
 * that a watching client learns of a split before any request. Prints the figures BENCHMARKS.md quotes
 * ("routing figure" lines); asserts only on counts and on what the cache holds, never on time.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
// the watch test splits a range: it runs last, so the counting tests see the quiet 16-range map (right
// after that split a fresh client's meta lookup can still miss it and fall back to node listings)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetaRoutingIT {
  static final int NODES = 3;
  static final int RANGES = 16;
  static final int MISSES = 20;
  // the routing trace (each multi-attempt call's attempts and refresh reasons, each span lookup): what
  // explains a count that differs from the expected one. The client logs through System.Logger, i.e.
  // java.util.logging here; kept in a field so the logger keeps its level
  static final java.util.logging.Logger ROUTING_TRACE = routingTrace();

  private static java.util.logging.Logger routingTrace() {
    java.util.logging.Logger trace = java.util.logging.Logger.getLogger("dev.rangekv.client.routing");
    java.util.logging.ConsoleHandler out = new java.util.logging.ConsoleHandler();
    out.setLevel(java.util.logging.Level.FINE);
    trace.setLevel(java.util.logging.Level.FINE);
    trace.addHandler(out);
    return trace;
  }

  @TempDir static Path dir;
  static LocalCluster cluster;
  static PeerChannels metaChannels;
  static MetaLocator meta;

  @BeforeAll
  static void start() throws Exception {
    // the controller runs (it reports every split to the meta map) but neither splits, merges nor
    // moves on its own during the test: nothing but the test changes the map
    ControllerConfig quiet = ControllerConfig.builder().tickMillis(1_000).maxBytes(1L << 40).minBytes(0).splitQps(1e9)
        .maxLeaderTransfers(0).build();
    cluster = LocalCluster.start(NODES, dir, RaftTuning.forTests(), quiet);
    metaChannels = new PeerChannels();
    meta = new MetaLocator(metaChannels, MetaRoutingIT::seeds);
    for (int i = 1; i < RANGES; i++) {
      split(key(i * 100));
    }
  }

  static List<String> seeds() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      out.add(cluster.config(i).clientAddress());
    }
    return out;
  }

  static RangeKvClient client(ClientOptions options) {
    RangeKvClient c = RangeKvClient.connect(seeds(), options);
    TestCluster.awaitServing(c);
    return c;
  }

  @AfterAll
  static void stop() {
    if (metaChannels != null) {
      metaChannels.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  static Key key(int i) {
    return Key.utf8(String.format("route/%05d", i));
  }

  /** Splits through the meta range, as {@code rangekv split} does: the meta map has the halves when it answers. */
  static void split(Key at) {
    meta.change(s -> s.split(AdminSplitRequest.newBuilder().setSplitKey(ProtoValues.bytes(at)).build()),
        Duration.ofSeconds(60));
  }

  /** The client's table with the span of {@code key}'s range forgotten (a placeholder): the next call there misses. */
  static RouteTable forgetting(RouteTable t, Key key) {
    List<RangeDescriptor> kept = new ArrayList<>(t.map().ranges());
    kept.removeIf(d -> d.contains(key) || CacheFold.isPlaceholder(d));
    return new RouteTable(CacheFold.fold(List.of(), kept), t.addresses(), t.leaders());
  }

  /** Misses {@code MISSES} times, each on one forgotten range; the counters' difference. */
  static RouteStats.Snapshot misses(RangeKvClient c, Supplier<RouteStats.Snapshot> counted) {
    RouteStats.Snapshot before = counted.get();
    for (int i = 0; i < MISSES; i++) {
      Key k = key((i % RANGES) * 100 + 50);
      c.installRoutes(forgetting(c.routeTable(), k));
      c.get(k);
    }
    return counted.get().minus(before);
  }

  @Test
  @Order(1)
  void aMiss_isOneMetaLookup_whereTheNodeListingsAskedEveryNode() {
    try (RangeKvClient viaMeta = client(TestCluster.options())) {
      viaMeta.get(key(1)); // the meta leader is known from connect on
      RouteStats.Snapshot m = misses(viaMeta, viaMeta::routeStats);
      System.out.printf("routing figure: source=meta nodes=%d ranges=%d misses=%d lookups=%d metaRpcs=%d nodeListRpcs=%d"
          + " fallbacks=%d rpcsPerMiss=%.2f%n", NODES, RANGES, MISSES, m.lookups(), m.metaCalls(), m.nodeListCalls(),
          m.fallbacks(), m.rpcs() / (double) MISSES);
      assertThat(m.lookups()).isEqualTo(MISSES);
      assertThat(m.nodeListCalls()).as("no node was asked for its ranges").isZero();
      assertThat(m.fallbacks()).isZero();
      assertThat(m.metaCalls()).as("one lookup per miss at the known meta leader").isEqualTo(MISSES);
    }
    RouteStats counted = new RouteStats();
    try (dev.rangekv.client.routing.NodeChannels channels = new dev.rangekv.client.routing.NodeChannels();
         RangeKvClient viaNodes = RangeKvClient.connect(
             new NodeListRangeSource(seeds(), channels, Duration.ofSeconds(2), counted), TestCluster.options())) {
      TestCluster.awaitServing(viaNodes);
      RouteStats.Snapshot n = misses(viaNodes, counted::snapshot);
      System.out.printf("routing figure: source=nodes nodes=%d ranges=%d misses=%d nodeListRpcs=%d rpcsPerMiss=%.2f%n",
          NODES, RANGES, MISSES, n.nodeListCalls(), n.rpcs() / (double) MISSES);
      assertThat(n.nodeListCalls()).isEqualTo((long) MISSES * NODES);
    }
  }

  @Test
  @Order(2)
  void concurrentMissesOnOneSpan_shareOneLookup() throws Exception {
    try (RangeKvClient c = client(TestCluster.options())) {
      c.get(key(1));
      Key k = key(750);
      c.installRoutes(forgetting(c.routeTable(), k));
      RouteStats.Snapshot before = c.routeStats();
      List<CompletableFuture<?>> gets = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        gets.add(c.getAsync(key(700 + i)));
      }
      CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
      RouteStats.Snapshot d = c.routeStats().minus(before);
      System.out.printf("routing figure: concurrent misses=50 on one span lookups=%d metaRpcs=%d nodeListRpcs=%d%n",
          d.lookups(), d.metaCalls(), d.nodeListCalls());
      assertThat(d.lookups()).isEqualTo(1);
      assertThat(d.metaCalls()).isEqualTo(1);
      assertThat(d.nodeListCalls()).isZero();
    }
  }

  @Test
  @Order(3)
  void aWatchingClient_learnsOfASplitBeforeItsNextRequest_othersLearnFromRangeMoved() {
    try (RangeKvClient watching = client(TestCluster.options().withWatchRanges(true));
         RangeKvClient plain = client(TestCluster.options())) {
      Key at = key(1234);
      plain.put(key(1290), "v".getBytes());
      assertThat(watching.rangeOf(at).start()).isNotEqualTo(at);
      RouteStats.Snapshot plainBefore = plain.routeStats();
      RouteStats.Snapshot watchBefore = watching.routeStats();

      long t0 = System.nanoTime();
      split(at);
      long splitDone = System.nanoTime();
      // no event to await: the cache is a value the stream replaces; poll it every 0.1 ms (the figure's resolution)
      org.awaitility.Awaitility.await("the watch stream brought the split").atMost(java.time.Duration.ofSeconds(30))
          .pollInSameThread().pollDelay(java.time.Duration.ZERO).pollInterval(java.time.Duration.ofNanos(100_000))
          .until(() -> watching.rangeOf(at).start().equals(at));
      long learnt = System.nanoTime();
      RouteStats.Snapshot w = watching.routeStats().minus(watchBefore);

      long r0 = System.nanoTime();
      assertThat(plain.get(key(1290))).isPresent();
      long r1 = System.nanoTime();
      RouteStats.Snapshot p = plain.routeStats().minus(plainBefore);
      System.out.printf("routing figure: after split: watch learnt %.1f ms after the split answered (%.1f ms after it"
          + " was asked), lookups=%d watchUpdates=%d; without watch: first request %.1f ms, lookups=%d rpcs=%d%n",
          (learnt - splitDone) / 1e6, (learnt - t0) / 1e6, w.lookups(), w.watchUpdates(), (r1 - r0) / 1e6,
          p.lookups(), p.rpcs());
      assertThat(w.lookups()).as("the watcher did not miss").isZero();
      assertThat(w.watchUpdates()).isPositive();
      // no assertion on the plain client's lookups: right after a split the child's group may still be
      // electing its first leader, every replica refuses, and the client refreshes while it waits
      assertThat(plain.rangeOf(key(1290)).start()).isEqualTo(at);
    }
  }
}
