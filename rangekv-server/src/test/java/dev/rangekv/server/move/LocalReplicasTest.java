package dev.rangekv.server.move;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The span a dropped replica deletes never touches another range held on the node. */
class LocalReplicasTest {
  private static Key k(int i) {
    return Key.utf8(String.format("%03d", i));
  }

  private static RangeEnd e(int i) {
    return i >= 100 ? RangeEnd.INFINITY : RangeEnd.at(k(i));
  }

  @Test
  void uncovered_skipsOtherRanges() {
    List<RangeDescriptor> others = List.of(new RangeDescriptor(2, k(20), e(30), List.of("n1"), 1),
        new RangeDescriptor(3, k(50), e(100), List.of("n1"), 1));
    List<LocalReplicas.Span> pieces = LocalReplicas.uncovered(k(10), e(100), others);
    assertThat(pieces).containsExactly(new LocalReplicas.Span(k(10), e(20)), new LocalReplicas.Span(k(30), e(50)));
  }

  @Test
  void uncovered_matchesABruteForceModel() {
    Property.named("uncovered").cases(1000).sizes(0, 6).check(g -> {
      int lo = g.between(0, 98);
      int hi = g.between(lo + 1, 100);
      List<RangeDescriptor> others = new ArrayList<>();
      int n = g.size();
      for (int i = 0; i < n; i++) {
        int a = g.between(0, 98);
        int b = g.between(a + 1, 100);
        others.add(new RangeDescriptor(i + 2, k(a), e(b), List.of("n1"), 1));
      }
      TreeSet<Integer> expected = new TreeSet<>();
      for (int x = lo; x < hi; x++) {
        int key = x;
        if (others.stream().noneMatch(o -> o.contains(k(key)))) {
          expected.add(x);
        }
      }
      TreeSet<Integer> actual = new TreeSet<>();
      for (LocalReplicas.Span s : LocalReplicas.uncovered(k(lo), e(hi), others)) {
        for (int x = 0; x < 100; x++) {
          if (s.lo().compareTo(k(x)) <= 0 && s.hi().isAbove(k(x))) {
            assertThat(actual.add(x)).as("pieces overlap at %d", x).isTrue();
          }
        }
      }
      assertThat(actual).isEqualTo(expected);
    });
  }
}
