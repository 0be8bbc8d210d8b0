package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.DeadlineExceededException;
import dev.rangekv.client.KeyValue;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RetriesExhaustedException;
import dev.rangekv.client.routing.RangeSnapshot;
import dev.rangekv.client.routing.RouteTable;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Seed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Stale and corrupt routing caches against a real 3-node LocalCluster. */
class RoutingIT {
  @TempDir static Path dir;
  static TestCluster tc;

  @BeforeAll
  static void start() throws Exception {
    tc = new TestCluster(dir);
  }

  @AfterAll
  static void stop() {
    if (tc != null) {
      tc.close();
    }
  }

  static Key k(int i) {
    return Key.utf8(String.format("stale/%04d", i));
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void aClientWhoseCacheIsStaleBy30Splits_getsCorrectAnswersWithinTheRetryBound() throws Exception {
    int n = 300;
    try (RangeKvClient writer = tc.client(); RangeKvClient stale = tc.client()) {
      for (int i = 0; i < n; i += 2) {
        writer.put(k(i), ("v" + i).getBytes());
      }
      RouteTable before = stale.routeTable();
      SplittableRandom r = Seed.stream(Seed.of("RoutingIT"), 0);
      for (int i = 0; i < 30; i++) {
        tc.split(k(r.nextInt(n)));
      }
      // the stale client learns only from its own calls' answers (RANGE_MOVED) and refreshes on misses
      assertThat(stale.routeTable()).isSameAs(before);
      for (int i = 0; i < n; i++) {
        assertThat(stale.get(k(i)).map(String::new)).as("key %d", i).isEqualTo(i % 2 == 0
            ? java.util.Optional.of("v" + i) : java.util.Optional.empty());
      }
      for (int i = 1; i < n; i += 2) {
        stale.put(k(i), ("w" + i).getBytes());
      }
      List<KeyValue> all = new ArrayList<>();
      writer.scan(Key.utf8("stale/"), Key.utf8("stale/").prefixEnd()).forEachRemaining(all::add);
      assertThat(all).hasSize(n);
      for (int i = 0; i < n; i++) {
        assertThat(all.get(i).valueUtf8()).isEqualTo((i % 2 == 0 ? "v" : "w") + i);
      }
      assertThat(stale.routeTable().map().size()).isGreaterThan(before.map().size());
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aClientFedACorruptMap_failsWithAClearErrorAfterAtMostTheRetryBound() throws Exception {
    Map<String, String> addresses = new HashMap<>();
    for (int i = 0; i < tc.cluster.size(); i++) {
      addresses.put("n" + (i + 1), tc.cluster.config(i).clientAddress());
    }
    // range ids no node holds, overlapping each other, on real nodes; then a range on a dead address
    List<RangeDescriptor> garbage = List.of(
        new RangeDescriptor(900, Key.EMPTY, RangeEnd.at(Key.utf8("m")), List.of("n1", "n2", "n3"), 50),
        new RangeDescriptor(901, Key.utf8("c"), RangeEnd.INFINITY, List.of("n2"), 40),
        new RangeDescriptor(902, Key.utf8("m"), RangeEnd.INFINITY, List.of("ghost"), 60));
    Map<String, String> withGhost = new HashMap<>(addresses);
    withGhost.put("ghost", "127.0.0.1:1");
    try (RangeKvClient client = RangeKvClient.connect(
        known -> CompletableFuture.completedFuture(new RangeSnapshot(garbage, withGhost, Map.of())),
        ClientOptions.defaults().withTimeout(java.time.Duration.ofSeconds(3)))) {
      long start = System.nanoTime();
      // the deadline (3 s here; 10 s by default) or the attempt cap (100), whichever comes first, ends each call
      assertThatThrownBy(() -> client.get(Key.utf8("a")))
          .isInstanceOfAny(RetriesExhaustedException.class, DeadlineExceededException.class)
          .hasMessageContaining("attempts=")
          .hasMessageContaining("RangeNotFound");
      assertThatThrownBy(() -> client.put(Key.utf8("x"), "v".getBytes()))
          .isInstanceOfAny(RetriesExhaustedException.class, DeadlineExceededException.class)
          .hasMessageContaining("attempts=")
          .hasMessageContaining("key=\"x\"");
      assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(60);
    }
  }
}
