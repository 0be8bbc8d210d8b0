package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.testkit.Seed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Writers that put continuously, each on its own keys ({@code key-NNNNNN} with NNNNNN mod count =
 * writer), recording the last acknowledged value per key; and the checks run afterwards. Writer w picks
 * its keys from stream w + 1 of the test's seed ({@link Seed}).
 */
final class Writers implements AutoCloseable {
  static final int KEY_SPACE = 100_000;

  private final LocalCluster cluster;
  private final List<Thread> threads = new ArrayList<>();
  private final List<TestRouter> routers = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  final Map<String, String> acked = new ConcurrentHashMap<>();
  final AtomicLong ackCount = new AtomicLong();
  final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** {@code count} writers drawing their keys from a fresh (printed) seed, or {@code -Drangekv.seed}. */
  Writers(LocalCluster cluster, int count) {
    this(cluster, count, Seed.of("Writers"));
  }

  Writers(LocalCluster cluster, int count, long seed) {
    this.cluster = cluster;
    for (int w = 0; w < count; w++) {
      TestRouter router = TestRouter.of(cluster);
      routers.add(router);
      int writer = w;
      SplittableRandom keys = Seed.stream(seed, w + 1);
      Thread t = new Thread(() -> run(router, writer, count, keys), "writer-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
  }

  static String key(int n) {
    return String.format("key-%06d", n);
  }

  void start() {
    routers.forEach(TestRouter::refresh);
    threads.forEach(Thread::start);
  }

  private void run(TestRouter router, int writer, int count, SplittableRandom keys) {
    long seq = 0;
    while (!stop.get()) {
      int n = keys.nextInt(KEY_SPACE / count) * count + writer;
      String key = key(n);
      String value = "w" + writer + "-" + (++seq);
      try {
        router.put(key, value);
        acked.put(key, value);
        ackCount.incrementAndGet();
      } catch (RuntimeException e) {
        failures.add(e);
        return;
      }
    }
  }

  /** Waits until {@code more} further writes were acknowledged. */
  void awaitAcks(long more, Duration timeout) {
    long target = ackCount.get() + more;
    Await.until(timeout, target + " acknowledged writes", () -> ackCount.get() >= target || !failures.isEmpty());
    assertThat(failures).isEmpty();
  }

  long retries() {
    return routers.stream().mapToLong(r -> r.retries.get()).sum();
  }

  @Override
  public void close() {
    stop.set(true);
    for (Thread t : threads) {
      try {
        t.join(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted stopping writers", e);
      }
    }
    routers.forEach(TestRouter::close);
    assertThat(failures).isEmpty();
  }

  /**
   * Checks: the ranges tile the keyspace; every acknowledged write reads back with its last value
   * (per range, through the range's leader, which refuses keys outside its bounds); every range
   * serves a write and a read; the replicas' stores converge to identical contents.
   */
  void verify(TestRouter router, int expectedRanges) {
    verify(router, expectedRanges, 1);
  }

  /**
   * {@link #verify(TestRouter, int)} with the per-range reads and probes spread over {@code parallelism}
   * routers of their own: each read of a dormant range waits for its wake, and a few hundred of those one
   * after the other took most of a minute.
   */
  void verify(TestRouter router, int expectedRanges, int parallelism) {
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

    Map<String, String> read = new ConcurrentHashMap<>();
    // each range's probe right after its read: a dormant range wakes once for both
    forEachRange(ranges, router, parallelism, (r, d) -> {
      for (KeyValueProto kv : r.scan(d.start(), d.end(), 0)) {
        String k = kv.getKey().toStringUtf8();
        assertThat(d.contains(Key.utf8(k))).as("key %s in range %s", k, d).isTrue();
        read.put(k, kv.getValue().toStringUtf8());
      }
      String probe = d.start().isEmpty() ? "" : d.start().toUtf8();
      r.put(probe + "~probe", "p");
      assertThat(r.get(probe + "~probe")).contains("p");
    });
    for (Map.Entry<String, String> e : acked.entrySet()) {
      assertThat(read.get(e.getKey())).as("last acknowledged value of %s", e.getKey()).isEqualTo(e.getValue());
    }
    awaitReplicasConverge(Duration.ofSeconds(30));
  }

  /** Runs {@code check} on every range: on the caller's router, or split over {@code parallelism} threads. */
  private void forEachRange(List<RangeDescriptorProto> ranges, TestRouter router, int parallelism,
      BiConsumer<TestRouter, RangeDescriptor> check) {
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
          try (TestRouter own = TestRouter.of(cluster)) {
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
      throw new IllegalStateException("range check failed", e.getCause());
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
