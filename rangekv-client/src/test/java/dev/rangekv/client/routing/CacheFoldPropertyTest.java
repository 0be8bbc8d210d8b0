package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CacheFoldPropertyTest {

  /** Every map version of a random split history, oldest first. */
  static List<RangeMap> history(Gen g) {
    List<RangeMap> versions = new ArrayList<>();
    RangeMap m = RangeMap.initial(1, List.of("n1", "n2", "n3"));
    versions.add(m);
    long nextId = 2;
    int splits = g.between(0, g.size());
    for (int i = 0; i < splits; i++) {
      Key at = Key.of(g.smallAlphabetBytes(1, 3, 6));
      if (m.lookup(at).start().equals(at)) {
        continue;
      }
      m = m.split(at, nextId++);
      versions.add(m);
    }
    return versions;
  }

  @Test
  void fold_ofNewsFromASplitHistory_neverRoutesAKeyToAnOlderGenerationThanItsNews() {
    Property.named("cache fold by generation").cases(1000).sizes(0, 30).check(g -> {
      List<RangeMap> versions = history(g);
      List<RangeDescriptor> news = new ArrayList<>();
      for (RangeMap v : versions) {
        for (RangeDescriptor d : v.ranges()) {
          if (g.chance(0.3)) {
            news.add(d);
          }
        }
      }
      Collections.shuffle(news, new java.util.Random(g.nextLong()));
      RangeMap folded = CacheFold.fold(List.of(), news);
      Set<RangeDescriptor> inputs = new HashSet<>(news);
      for (RangeDescriptor d : folded.ranges()) {
        assertThat(CacheFold.isPlaceholder(d) || inputs.contains(d)).as("%s is an input", d).isTrue();
      }
      for (int probe = 0; probe < 20; probe++) {
        Key k = Key.of(g.smallAlphabetBytes(0, 4, 6));
        RangeDescriptor routed = folded.lookup(k);
        if (CacheFold.isPlaceholder(routed)) {
          continue;
        }
        for (RangeDescriptor d : news) {
          if (d.contains(k)) {
            assertThat(routed.generation()).as("key %s routed to %s, news %s", k, routed, d)
                .isGreaterThanOrEqualTo(d.generation());
          }
        }
      }
    });
  }

  @Test
  void fold_withTheWholeCurrentMap_isExactlyThatMap_whateverStaleNewsComeWithIt() {
    Property.named("cache fold converges").cases(1000).sizes(0, 30).check(g -> {
      List<RangeMap> versions = history(g);
      RangeMap current = versions.get(versions.size() - 1);
      List<RangeDescriptor> news = new ArrayList<>(current.ranges());
      for (RangeMap v : versions) {
        for (RangeDescriptor d : v.ranges()) {
          if (g.chance(0.2)) {
            news.add(d);
          }
        }
      }
      Collections.shuffle(news, new java.util.Random(g.nextLong()));
      List<RangeDescriptor> stale = versions.get(g.nextInt(versions.size())).ranges();
      assertThat(CacheFold.fold(stale, news).ranges()).isEqualTo(current.ranges());
    });
  }

  @Test
  void fold_ofNothing_isOnePlaceholder_andGapsBecomePlaceholders() {
    assertThat(CacheFold.fold(List.of(), List.of()).ranges()).singleElement()
        .satisfies(d -> assertThat(CacheFold.isPlaceholder(d)).isTrue());
    RangeDescriptor mid = new RangeDescriptor(5, Key.utf8("b"), RangeEnd.at(Key.utf8("d")), List.of("n1"), 2);
    RangeMap m = CacheFold.fold(List.of(), List.of(mid));
    assertThat(m.size()).isEqualTo(3);
    assertThat(m.lookup(Key.utf8("a")).rangeId()).isEqualTo(CacheFold.UNKNOWN_RANGE_ID);
    assertThat(m.lookup(Key.utf8("c"))).isEqualTo(mid);
    assertThat(m.lookup(Key.utf8("e")).rangeId()).isEqualTo(CacheFold.UNKNOWN_RANGE_ID);
  }
}
