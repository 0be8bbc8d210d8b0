package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cache learning only from RANGE_MOVED answers shaped like the node's (the addressed range's current
 * descriptor plus every range ever split off it, at their current descriptors) converges for the key
 * asked about: after one answer, the key routes to its current range.
 */
class MovedNewsPropertyTest {
  @Test
  void oneRangeMovedAnswer_routesTheKeyToItsCurrentRange() {
    Property.named("moved news converge").cases(1000).sizes(1, 60).check(g -> {
      RangeMap actual = RangeMap.initial(1, List.of("n1"));
      Map<Long, List<Long>> children = new HashMap<>();
      RouteTable cache = new RouteTable(actual, Map.of(), Map.of());
      long id = 2;
      for (int step = 0; step < g.size(); step++) {
        Key at = Key.utf8(String.format("scan/%05d", g.nextInt(400)));
        if (!actual.lookup(at).start().equals(at)) {
          long parent = actual.lookup(at).rangeId();
          actual = actual.split(at, id);
          children.computeIfAbsent(parent, p -> new ArrayList<>()).add(id);
          id++;
        }
        Key k = Key.utf8(String.format("scan/%05d", g.nextInt(400)) + (g.nextBoolean() ? "\0" : ""));
        RangeDescriptor cached = cache.map().lookup(k);
        RangeDescriptor current = actual.byId(cached.rangeId()).orElseThrow();
        if (current.equals(cached) && current.contains(k)) {
          continue; // served
        }
        List<RangeDescriptor> news = new ArrayList<>();
        news.add(current);
        for (long c : children.getOrDefault(current.rangeId(), List.of())) {
          news.add(actual.byId(c).orElseThrow());
        }
        RouteTable before = cache;
        cache = cache.withMoved(news, Map.of());
        RangeDescriptor now = cache.map().lookup(k);
        if (current.contains(k)) {
          assertThat(now).as("key %s cached %s news %s before %s", k, cached, news, before.map().ranges())
              .isEqualTo(current);
        } else {
          assertThat(now.generation()).isGreaterThanOrEqualTo(cached.generation());
        }
      }
    });
  }

  @Test
  void interleavedNewsAndLaggingSnapshots_neverLowerAKeysCachedGeneration() {
    Property.named("cache generations never go down").cases(1000).sizes(1, 60).check(g -> {
      List<RangeMap> versions = new ArrayList<>();
      RangeMap actual = RangeMap.initial(1, List.of("n1"));
      versions.add(actual);
      Map<Long, List<Long>> children = new HashMap<>();
      RouteTable cache = new RouteTable(actual, Map.of(), Map.of());
      long id = 2;
      List<Key> probes = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        probes.add(Key.utf8(String.format("scan/%05d", g.nextInt(400)) + (g.nextBoolean() ? "\0" : "")));
      }
      for (int step = 0; step < g.size(); step++) {
        Key at = Key.utf8(String.format("scan/%05d", g.nextInt(400)));
        if (!actual.lookup(at).start().equals(at)) {
          long parent = actual.lookup(at).rangeId();
          actual = actual.split(at, id);
          children.computeIfAbsent(parent, p -> new ArrayList<>()).add(id);
          id++;
          versions.add(actual);
        }
        long[] before = new long[probes.size()];
        for (int i = 0; i < probes.size(); i++) {
          before[i] = cache.map().lookup(probes.get(i)).generation();
        }
        if (g.nextBoolean()) {
          Key k = probes.get(g.nextInt(probes.size()));
          RangeDescriptor cached = cache.map().lookup(k);
          if (CacheFold.isPlaceholder(cached)) {
            continue;
          }
          RangeDescriptor current = actual.byId(cached.rangeId()).orElseThrow();
          List<RangeDescriptor> news = new ArrayList<>();
          news.add(current);
          for (long c : children.getOrDefault(current.rangeId(), List.of())) {
            news.add(actual.byId(c).orElseThrow());
          }
          cache = cache.withMoved(news, Map.of());
        } else {
          List<RangeDescriptor> listed = new ArrayList<>();
          for (int node = 0; node < 3; node++) {
            RangeMap seen = versions.get(g.between(Math.max(0, versions.size() - 4), versions.size() - 1));
            listed.addAll(seen.ranges());
          }
          cache = cache.withSnapshot(new RangeSnapshot(listed, Map.of(), Map.of()));
        }
        for (int i = 0; i < probes.size(); i++) {
          RangeDescriptor now = cache.map().lookup(probes.get(i));
          assertThat(CacheFold.isPlaceholder(now) || now.generation() >= before[i])
              .as("key %s went from g%d to %s; cache %s", probes.get(i), before[i], now, cache.map().ranges())
              .isTrue();
        }
      }
    });
  }
}
