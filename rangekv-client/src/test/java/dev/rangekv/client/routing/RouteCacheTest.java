package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  /** A source answering span lookups with {@code answer}, counting them; its fallback answers {@code nodes}. */
  private static final class SpanSource implements RangeSource {
    final AtomicInteger lookups = new AtomicInteger();
    final AtomicInteger fallbacks = new AtomicInteger();
    CompletableFuture<RangeSnapshot> answer = new CompletableFuture<>();
    RangeSnapshot nodes;

    @Override
    public CompletableFuture<RangeSnapshot> fetch(RouteTable known) {
      return answer;
    }

    @Override
    public CompletableFuture<RangeSnapshot> lookup(Key start, RangeEnd end, RouteTable known) {
      lookups.incrementAndGet();
      return answer;
    }

    @Override
    public Optional<RangeSource> fallback() {
      return Optional.of(known -> {
        fallbacks.incrementAndGet();
        return CompletableFuture.completedFuture(nodes);
      });
    }
  }

  static RangeSnapshot snapshot(RangeMap map) {
    return new RangeSnapshot(map.ranges(), Map.of("n1", "h:1"), Map.of());
  }

  @Test
  void concurrentMissesOnOneSpan_shareOneLookup_otherSpansGetTheirOwn() {
    SpanSource source = new SpanSource();
    RouteCache cache = new RouteCache(source);
    CompletableFuture<RouteTable> a = cache.refresh(Key.EMPTY, RangeEnd.INFINITY);
    CompletableFuture<RouteTable> b = cache.refresh(Key.EMPTY, RangeEnd.INFINITY);
    assertThat(a).isSameAs(b);
    assertThat(source.lookups).hasValue(1);
    CompletableFuture<RouteTable> c = cache.refresh(Key.utf8("m"), RangeEnd.INFINITY);
    assertThat(c).isNotSameAs(a);
    assertThat(source.lookups).hasValue(2);

    source.answer.complete(snapshot(RangeMap.initial(1, List.of("n1"))));
    assertThat(a.join().map().size()).isEqualTo(1);
    assertThat(source.fallbacks).hasValue(0);
    assertThat(cache.stats().snapshot().lookups()).isEqualTo(2);
    cache.refresh(Key.EMPTY, RangeEnd.INFINITY); // finished lookups are not joined
    assertThat(source.lookups).hasValue(3);
  }

  @Test
  void aLookupThatTeachesNothing_asksTheFallback_whichCanTeach() {
    SpanSource source = new SpanSource();
    RouteCache cache = new RouteCache(source);
    RangeMap parent = RangeMap.initial(1, List.of("n1"));
    cache.learnSnapshot(snapshot(parent));
    RangeMap split = parent.split(Key.utf8("m"), 2);
    source.answer.complete(snapshot(parent)); // the source trails the split
    source.nodes = snapshot(split);

    RangeDescriptor stale = cache.current().map().lookup(Key.utf8("x"));
    RouteTable after = cache.refresh(stale.start(), stale.end()).join();

    assertThat(source.fallbacks).hasValue(1);
    assertThat(after.map().lookup(Key.utf8("x")).rangeId()).isEqualTo(2);
    assertThat(cache.stats().snapshot().fallbacks()).isEqualTo(1);
  }

  @Test
  void aLookupThatTeaches_doesNotAskTheFallback() {
    SpanSource source = new SpanSource();
    RouteCache cache = new RouteCache(source);
    RangeMap parent = RangeMap.initial(1, List.of("n1"));
    cache.learnSnapshot(snapshot(parent));
    source.answer.complete(snapshot(parent.split(Key.utf8("m"), 2)));

    RouteTable after = cache.refresh(Key.EMPTY, RangeEnd.INFINITY).join();

    assertThat(source.fallbacks).hasValue(0);
    assertThat(after.map().size()).isEqualTo(2);
  }

  @Test
  void aFailedSpanLookup_failsTheJoinedMisses_andTheNextMissTriesAgain() {
    SpanSource source = new SpanSource();
    RouteCache cache = new RouteCache(source);
    CompletableFuture<RouteTable> a = cache.refresh(Key.EMPTY, RangeEnd.INFINITY);
    source.answer.completeExceptionally(new IllegalStateException("down"));
    assertThat(a).isCompletedExceptionally();
    source.answer = CompletableFuture.completedFuture(snapshot(RangeMap.initial(1, List.of("n1"))));
    assertThat(cache.refresh(Key.EMPTY, RangeEnd.INFINITY).join().map().size()).isEqualTo(1);
    assertThat(source.lookups).hasValue(2);
  }

  @Test
  void anAnswerTheSourceAlreadyGotFromItsFallback_isNotAskedOfTheFallbackAgain() {
    SpanSource source = new SpanSource();
    RouteCache cache = new RouteCache(source);
    RangeMap map = RangeMap.initial(1, List.of("n1"));
    cache.learnSnapshot(snapshot(map));
    source.answer.complete(snapshot(map).asFallback()); // e.g. the meta range was down

    cache.refresh(Key.EMPTY, RangeEnd.INFINITY).join();

    assertThat(source.fallbacks).hasValue(0);
  }
}
