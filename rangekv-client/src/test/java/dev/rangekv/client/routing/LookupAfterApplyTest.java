package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cache's lookups after RANGE_MOVED news agree with a linear scan, on keys sharing a long prefix. */
class LookupAfterApplyTest {
  @Test
  void lookup_afterApplyingNews_matchesALinearScan() {
    Property.named("lookup after apply").cases(1000).sizes(1, 120).check(g -> {
      RangeMap actual = RangeMap.initial(1, List.of("n1"));
      RangeMap cache = actual;
      long id = 2;
      for (int i = 0; i < g.size(); i++) {
        Key at = Key.utf8(String.format("%s/%05d", g.pick(List.of("scan", "page", "batch", "stale")), g.nextInt(400)));
        if (actual.lookup(at).start().equals(at)) {
          continue;
        }
        actual = actual.split(at, id++);
        if (g.chance(0.3)) {
          RangeDescriptor d = actual.lookup(at);
          List<RangeDescriptor> news = new ArrayList<>();
          news.add(d);
          news.add(actual.get(actual.indexOf(at) - 1));
          cache = cache.applyAll(news);
        }
      }
      for (int probe = 0; probe < 50; probe++) {
        Key k = Key.utf8(String.format("%s/%05d", g.pick(List.of("scan", "page", "batch", "stale")), g.nextInt(400)) + (g.nextBoolean() ? "\0" : ""));
        RangeDescriptor linear = null;
        for (RangeDescriptor d : cache.ranges()) {
          if (d.contains(k)) {
            linear = d;
          }
        }
        assertThat(cache.lookup(k)).as("key %s in %s", k, cache.ranges()).isEqualTo(linear);
      }
    });
  }
}
