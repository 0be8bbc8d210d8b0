package dev.rangekv.client.it;

import static dev.rangekv.client.it.ClientClusterIT.drain;
import static dev.rangekv.client.it.ClientClusterIT.expected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.routing.RetryPolicy;
import dev.rangekv.client.routing.RouteTable;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.testkit.Seed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scans on a 4-node LocalCluster while a {@link Churner} splits, merges and moves ranges under them
 * through the admin RPCs: every ordered scan (both directions, small pages, limits) and every parallel
 * scan returns exactly the data set, in order. Then a client still holding the routes from before the
 * churn reads everything correctly and ends up with the cluster's current descriptors.
 */
class ScanUnderChurnIT {
  private static final Logger log = LoggerFactory.getLogger(ScanUnderChurnIT.class);
  private static final int N = 240;

  @TempDir Path dir;

  /**
   * {@link TestCluster#options()} with 30 attempts instead of 10: the churn reshapes ranges back to back,
   * and one page can meet several reshapes in a row, each costing it up to three attempts (RANGE_MOVED,
   * RANGE_NOT_FOUND while a child's group starts, NOT_LEADER before its first election). The bound
   * stays; what the scans return is checked exactly.
   */
  static ClientOptions options() {
    return TestCluster.options().withRetry(new RetryPolicy(30, Duration.ofMillis(50), Duration.ofSeconds(2)));
  }

  static Key k(int i) {
    return Key.utf8(String.format("churn/%05d", i));
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void scans_whileRangesSplitMergeAndMove_returnExactlyTheModel_andStaleRoutesRecover() throws Exception {
    try (TestCluster tc = new TestCluster(dir, 4); RangeKvClient client = RangeKvClient.connect(tc.seeds(), options())) {
      TestCluster.awaitServing(client);
      NavigableMap<Key, String> model = new TreeMap<>();
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        model.put(k(i), "v" + i);
        writes.add(client.putAsync(k(i), ("v" + i).getBytes()));
        if (writes.size() == 32) { // stay within the servers' dedupe window of in-flight writes
          writes.forEach(CompletableFuture::join);
          writes.clear();
        }
      }
      writes.forEach(CompletableFuture::join);
      for (int i = N / 4; i < N; i += N / 4) {
        tc.split(k(i));
      }
      client.refreshRoutes();
      RouteTable before = client.routeTable();

      Key lo = Key.utf8("churn/");
      Key hi = Key.utf8("churn0");
      long seed = Seed.of("ScanUnderChurnIT");
      SplittableRandom random = Seed.stream(seed, 0);
      int scans = 0;
      long t0 = System.nanoTime();
      try (Churner churner = new Churner(tc, ScanUnderChurnIT::k, N, Seed.stream(seed, 1), Duration.ofSeconds(25))) {
        churner.start();
        while (churner.isAlive() || scans < 8) {
          try {
            scanAndCheck(client, model, scans, random.nextInt(N));
          } catch (RuntimeException e) {
            throw new AssertionError("scan #" + scans + " failed under churn: " + churner.summary(), e);
          }
          scans++;
        }
        churner.join();
        log.info("churn over scans={} splits={} merges={} moves={} ms={}", scans, churner.splits, churner.merges,
            churner.moves, (System.nanoTime() - t0) / 1_000_000);
        assertThat(churner.failure.get()).as("churn failure").isNull();
        assertThat(churner.merges.get()).as("merges").isPositive();
        assertThat(churner.moves.get()).as("moves").isPositive();
      }

      // A client whose routes predate the churn: every descriptor it holds for the data set is stale.
      RangeMap now = tc.ranges();
      for (RangeDescriptor old : before.map().ranges()) {
        if (old.overlaps(lo, RangeEnd.at(hi))) {
          assertThat(now.ranges()).as("pre-churn descriptor still current").doesNotContain(old);
        }
      }
      try (RangeKvClient stale = RangeKvClient.connect(tc.seeds(), options())) {
        stale.installRoutes(before);
        for (int i = 0; i < N; i += 7) {
          assertThat(stale.get(k(i)).map(String::new)).contains("v" + i);
        }
        assertThat(drain(stale.scan(lo, RangeEnd.at(hi), ScanOptions.defaults().withReverse(true).withPageSize(4))))
            .isEqualTo(expected(model, lo, hi, true, 0));
        for (int i = 0; i < N; i += 7) {
          assertThat(stale.rangeOf(k(i))).as("learnt route of %s", k(i)).isEqualTo(now.lookup(k(i)));
        }
      }
    }
  }

  private static void scanAndCheck(RangeKvClient client, NavigableMap<Key, String> model, int scans, int r) {
    Key lo = Key.utf8("churn/");
    Key hi = Key.utf8("churn0");
    boolean reverse = scans % 2 == 1;
    int pageSize = new int[] {1, 2, 3, 5, 8}[scans % 5];
    long limit = scans % 3 == 2 ? 1 + r : 0;
    ScanOptions o = ScanOptions.defaults().withReverse(reverse).withPageSize(pageSize).withLimit(limit);
    assertThat(drain(client.scan(lo, RangeEnd.at(hi), o)))
        .as("scan #%d reverse=%s pageSize=%d limit=%d", scans, reverse, pageSize, limit)
        .isEqualTo(expected(model, lo, hi, reverse, limit));
    assertThat(drain(client.parallelScan(lo, RangeEnd.at(hi), o.withPageSize(pageSize + 3).withParallelism(3))))
        .as("parallel scan #%d reverse=%s pageSize=%d limit=%d", scans, reverse, pageSize + 3, limit)
        .isEqualTo(expected(model, lo, hi, reverse, limit));
  }
}
