package dev.rangekv.client.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class KWayMergePropertyTest {
  @Test
  void merge_ofSortedSources_equalsTheSortedConcatenation() {
    Property.named("k-way merge").cases(1000).sizes(0, 40).check(g -> {
      int k = g.between(0, 8);
      boolean reverse = g.nextBoolean();
      Comparator<Integer> order = reverse ? Comparator.<Integer>reverseOrder() : Comparator.<Integer>naturalOrder();
      List<List<Integer>> sources = new ArrayList<>();
      List<Integer> all = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        List<Integer> s = g.listOf(g.between(0, g.size()), () -> g.nextInt(50));
        s.sort(order);
        sources.add(s);
        all.addAll(s);
      }
      all.sort(order);
      List<Iterator<Integer>> its = new ArrayList<>();
      sources.forEach(s -> its.add(s.iterator()));
      List<Integer> merged = new ArrayList<>();
      new KWayMerge<>(its, order).forEachRemaining(merged::add);
      assertThat(merged).isEqualTo(all);
    });
  }
}
