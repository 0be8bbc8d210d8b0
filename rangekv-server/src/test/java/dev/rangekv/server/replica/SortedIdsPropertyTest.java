package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SortedIdsPropertyTest {
  @Test
  void sortedIds_behaveAsATreeSetInUnsignedOrder() {
    Property.named("sorted ids vs tree set").cases(200).sizes(1, 400).check(g -> {
      TreeSet<Long> model = new TreeSet<>(Long::compareUnsigned);
      // ids around 0, around the sign bit (unsigned order differs from signed there) and far apart
      long base = g.pick(List.of(0L, Long.MAX_VALUE - 100, -200L, 1L << 40));
      List<Long> start = new ArrayList<>();
      for (int i = g.nextInt(20); i > 0; i--) {
        long id = base + g.nextInt(300);
        if (model.add(id)) {
          start.add(id);
        }
      }
      SortedIds ids = new SortedIds(start.stream().mapToLong(Long::longValue).toArray());
      long next = base + 300;
      for (int step = 0; step < g.size(); step++) {
        int op = g.nextInt(10);
        if (op < 5) {
          long id = g.chance(0.7) ? next++ : base + g.nextInt(400); // mostly in order, some out of order
          assertThat(ids.add(id)).as("add %d", id).isEqualTo(model.add(id));
        } else if (op < 8) {
          long id = base + g.nextInt((int) Math.min(1000, next - base + 10));
          assertThat(ids.contains(id)).as("contains %d", id).isEqualTo(model.contains(id));
        } else {
          long from = base + g.nextInt(500) - 50;
          long to = from + g.nextInt(300) - 20;
          List<Long> expected = new ArrayList<>();
          if (Long.compareUnsigned(from, to) < 0) {
            expected.addAll(model.subSet(from, true, to, false));
            model.removeAll(expected);
          }
          long[] removed = ids.removeRange(from, to);
          assertThat(removed).as("removeRange [%d, %d)", from, to)
              .containsExactly(expected.stream().mapToLong(Long::longValue).toArray());
        }
        assertThat(ids.size()).isEqualTo(model.size());
      }
      assertThat(ids.toArray()).containsExactly(model.stream().mapToLong(Long::longValue).toArray());
    });
  }
}
