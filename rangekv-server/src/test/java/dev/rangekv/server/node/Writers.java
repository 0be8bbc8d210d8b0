package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.testcluster.AckedWriters;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Seed;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * The node tests' {@link AckedWriters}: writers that put continuously through a router each, each on its
 * own keys ({@code key-NNNNNN} with NNNNNN mod count = writer); any failed write is unexpected (a router
 * retries until its deadline). Writer w picks its keys from stream w + 1 of the test's seed ({@link Seed}).
 * Adds the checks of a whole cluster: tiling, a write and a read per range, replica stores converging.
 */
final class Writers implements AutoCloseable {
  static final int KEY_SPACE = 100_000;

  private final LocalCluster cluster;
  private final List<ClusterRouter> routers = new ArrayList<>();
  private final AckedWriters writers;

  /** {@code count} writers drawing their keys from a fresh (printed) seed, or {@code -Drangekv.seed}. */
  Writers(LocalCluster cluster, int count) {
    this(cluster, count, Seed.of("Writers"));
  }

  Writers(LocalCluster cluster, int count, long seed) {
    this.cluster = cluster;
    SplittableRandom[] keys = new SplittableRandom[count];
    for (int w = 0; w < count; w++) {
      keys[w] = Seed.stream(seed, w + 1);
      routers.add(ClusterSteps.router(cluster));
    }
    this.writers = new AckedWriters(new AckedWriters.Plan(count, Long.MAX_VALUE,
        (w, n) -> new AckedWriters.Write(Key.utf8(key(keys[w].nextInt(KEY_SPACE / count) * count + w)),
            ("w" + w + "-" + n).getBytes(StandardCharsets.UTF_8)),
        w -> (k, v) -> routers.get(w).put(k.toUtf8(), new String(v, StandardCharsets.UTF_8)),
        e -> Optional.empty()));
  }

  static String key(int n) {
    return String.format("key-%06d", n);
  }

  void start() {
    routers.forEach(ClusterRouter::refresh);
    writers.start();
  }

  /** Waits until {@code more} further writes were acknowledged. */
  void awaitAcks(long more, Duration timeout) {
    writers.awaitAcks(more, timeout);
  }

  /** Acknowledged writes so far. */
  long acks() {
    return writers.acks();
  }

  /** The last acknowledged value of every key written. */
  Map<String, String> acked() {
    Map<String, String> out = new HashMap<>();
    writers.acked().forEach((k, v) -> out.put(k.toUtf8(), new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  long retries() {
    return routers.stream().mapToLong(ClusterRouter::retries).sum();
  }

  @Override
  public void close() {
    writers.close();
    routers.forEach(ClusterRouter::close);
    assertThat(writers.unexpected()).isEmpty();
  }

  /**
   * Checks: the ranges tile the keyspace; every acknowledged write reads back with its last value
   * (per range, through the range's leader, which refuses keys outside its bounds); every range
   * serves a write and a read; the replicas' stores converge to identical contents.
   */
  void verify(ClusterRouter router, int expectedRanges) {
    verify(router, expectedRanges, 1);
  }

  /**
   * {@link #verify(ClusterRouter, int)} with the per-range reads and probes spread over {@code parallelism}
   * routers of their own: each read of a dormant range waits for its wake, and a few hundred of those one
   * after the other took most of a minute.
   */
  void verify(ClusterRouter router, int expectedRanges, int parallelism) {
    router.refresh();
    List<RangeDescriptorProto> ranges = router.ranges();
    assertThat(ranges).hasSize(expectedRanges);
    Key expectedStart = Key.EMPTY;
    for (RangeDescriptorProto p : ranges) {
      RangeDescriptor d = ProtoValues.descriptor(p);
      assertThat(d.start()).as("tiling at %s", d).isEqualTo(expectedStart);
      expectedStart = d.end().isInfinite() ? null : d.end().key();
    }
    assertThat(expectedStart).as("last range ends at +inf").isNull();

    Map<Key, byte[]> read = new ConcurrentHashMap<>();
    // each range's probe right after its read: a dormant range wakes once for both
    forEachRange(ranges, router, parallelism, (r, d) -> {
      for (KeyValueProto kv : r.scan(d.start(), d.end(), 0)) {
        String k = kv.getKey().toStringUtf8();
        assertThat(d.contains(Key.utf8(k))).as("key %s in range %s", k, d).isTrue();
        read.put(Key.utf8(k), kv.getValue().toByteArray());
      }
      String probe = d.start().isEmpty() ? "" : d.start().toUtf8();
      r.put(probe + "~probe", "p");
      assertThat(r.get(probe + "~probe")).contains("p");
    });
    // the last acknowledged value of each key, as the scans above read it
    writers.assertNoAckedWriteLost(keys -> keys.stream().map(k -> Optional.ofNullable(read.get(k))).toList());
    awaitReplicasConverge(Duration.ofSeconds(30));
  }

  /** Runs {@code check} on every range: on the caller's router, or split over {@code parallelism} threads. */
  private void forEachRange(List<RangeDescriptorProto> ranges, ClusterRouter router, int parallelism,
      BiConsumer<ClusterRouter, RangeDescriptor> check) {
    if (parallelism <= 1) {
      ranges.forEach(p -> check.accept(router, ProtoValues.descriptor(p)));
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(parallelism);
    try {
      List<Future<?>> slices = new ArrayList<>();
      for (int t = 0; t < parallelism; t++) {
        int first = t;
        slices.add(pool.submit(() -> {
          try (ClusterRouter own = ClusterSteps.router(cluster)) {
            own.refresh();
            for (int i = first; i < ranges.size(); i += parallelism) {
              check.accept(own, ProtoValues.descriptor(ranges.get(i)));
            }
          }
        }));
      }
      for (Future<?> slice : slices) {
        slice.get(5, TimeUnit.MINUTES);
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Error error) {
        throw error; // an assertion failed in a slice
      }
      throw new IllegalStateException("range checks failed", e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException("range checks did not finish", e);
    } finally {
      pool.shutdownNow();
    }
  }

  void awaitReplicasConverge(Duration timeout) {
    ClusterSteps.awaitSameStores(cluster, "replica stores to converge", timeout, () -> {
      List<Integer> running = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        if (cluster.isRunning(i)) {
          running.add(i);
        }
      }
      return running;
    });
  }
}
