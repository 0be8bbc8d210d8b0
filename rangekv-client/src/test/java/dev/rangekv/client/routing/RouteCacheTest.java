package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.rangemap.RangeMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RouteCacheTest {
  @Test
  void concurrentMisses_shareOneLookup() {
    AtomicInteger fetches = new AtomicInteger();
    CompletableFuture<RangeSnapshot> pending = new CompletableFuture<>();
    RouteCache cache = new RouteCache(known -> {
      fetches.incrementAndGet();
      return pending;
    });
    CompletableFuture<RouteTable> a = cache.refresh();
    CompletableFuture<RouteTable> b = cache.refresh();
    assertThat(a).isSameAs(b);
    assertThat(fetches).hasValue(1);
    pending.complete(new RangeSnapshot(RangeMap.initial(1, List.of("n1")).ranges(), Map.of("n1", "h:1"), Map.of()));
    assertThat(a.join().map().size()).isEqualTo(1);
    assertThat(cache.current().addresses()).containsEntry("n1", "h:1");
    cache.refresh();
    assertThat(fetches).hasValue(2);
  }

  @Test
  void aFailedLookup_leavesTheTableUnchanged() {
    RouteCache cache = new RouteCache(known -> CompletableFuture.failedFuture(new IllegalStateException("down")));
    RouteTable before = cache.current();
    assertThat(cache.refresh()).isCompletedExceptionally();
    assertThat(cache.current()).isSameAs(before);
  }
}
