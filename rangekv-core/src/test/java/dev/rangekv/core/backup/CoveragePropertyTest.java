package dev.rangekv.core.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Coverage, uncovered parts and resume plans against a brute-force model: every key of length at most 2
 * over a 4-letter alphabet, counted range by range. Span bounds are drawn from those keys, so every
 * non-empty gap or overlap contains one of them (its start).
 */
class CoveragePropertyTest {
  static final List<Key> KEYS = keys();

  private static List<Key> keys() {
    TreeSet<Key> all = new TreeSet<>();
    all.add(Key.EMPTY);
    for (int a = 0; a < 4; a++) {
      all.add(Key.of(new byte[] {(byte) a}));
      for (int b = 0; b < 4; b++) {
        all.add(Key.of(new byte[] {(byte) a, (byte) b}));
      }
    }
    return List.copyOf(all);
  }

  /** A random span over the model's keys. */
  static KeySpan span(Gen g) {
    int i = g.nextInt(KEYS.size());
    int j = g.between(i + 1, KEYS.size());
    return new KeySpan(KEYS.get(i), j == KEYS.size() ? RangeEnd.INFINITY : RangeEnd.at(KEYS.get(j)));
  }

  /** A random tiling of the whole keyspace (as a cluster's ranges are). */
  static List<KeySpan> tiling(Gen g) {
    TreeSet<Integer> cuts = new TreeSet<>();
    int n = g.nextInt(Math.min(g.size(), KEYS.size() - 1) + 1);
    for (int i = 0; i < n; i++) {
      cuts.add(g.between(1, KEYS.size() - 1));
    }
    List<KeySpan> out = new ArrayList<>();
    int from = 0;
    for (int c : cuts) {
      out.add(new KeySpan(KEYS.get(from), RangeEnd.at(KEYS.get(c))));
      from = c;
    }
    out.add(new KeySpan(KEYS.get(from), RangeEnd.INFINITY));
    return out;
  }

  static int holders(List<KeySpan> ranges, Key k) {
    return (int) ranges.stream().filter(r -> r.contains(k)).count();
  }

  static boolean tiles(List<KeySpan> ranges, KeySpan span) {
    for (Key k : KEYS) {
      if (span.contains(k) && holders(ranges, k) != 1) {
        return false;
      }
    }
    return ranges.stream().allMatch(r -> r.overlaps(span));
  }

  @Test
  void check_findsAProblem_exactlyWhenTheRangesDoNotTileTheSpan() {
    Property.named("coverage-check").cases(2000).sizes(1, 12).check(g -> {
      KeySpan span = span(g);
      List<KeySpan> ranges = new ArrayList<>(tiling(g).stream().filter(r -> r.overlaps(span)).toList());
      int edits = g.nextInt(3);
      for (int e = 0; e < edits && !ranges.isEmpty(); e++) {
        switch (g.nextInt(4)) {
          case 0 -> ranges.remove(g.nextInt(ranges.size()));
          case 1 -> ranges.add(g.nextInt(ranges.size() + 1), span(g));
          case 2 -> ranges.set(g.nextInt(ranges.size()), span(g));
          default -> java.util.Collections.swap(ranges, g.nextInt(ranges.size()), g.nextInt(ranges.size()));
        }
      }
      boolean sorted = true;
      for (int i = 1; i < ranges.size(); i++) {
        sorted &= ranges.get(i - 1).start().compareTo(ranges.get(i).start()) < 0;
      }
      boolean expected = sorted && tiles(ranges, span);
      var problem = Coverage.check(ranges, span);
      assertThat(problem.isEmpty()).as("ranges %s span %s problem %s", ranges, span, problem).isEqualTo(expected);
      problem.ifPresent(p -> assertThat(p.describe()).isNotBlank());
    });
  }

  @Test
  void uncovered_holdsExactlyTheKeysNoRangeHolds() {
    Property.named("coverage-uncovered").cases(2000).sizes(1, 10).check(g -> {
      KeySpan span = span(g);
      List<KeySpan> ranges = g.listOf(g.nextInt(5), () -> span(g));
      List<KeySpan> gaps = Coverage.uncovered(ranges, span);
      for (Key k : KEYS) {
        boolean missing = span.contains(k) && holders(ranges, k) == 0;
        assertThat(holders(gaps, k)).as("key %s ranges %s span %s gaps %s", k, ranges, span, gaps)
            .isEqualTo(missing ? 1 : 0);
      }
      for (int i = 1; i < gaps.size(); i++) {
        assertThat(gaps.get(i - 1).end().compareTo(gaps.get(i).start())).isLessThan(0);
      }
    });
  }

  @Test
  void resumePlan_keepsAndExportsRangesThatHoldEveryKeyOnce() {
    Property.named("resume-plan").cases(2000).sizes(1, 12).check(g -> {
      KeySpan span = span(g);
      // an interrupted run wrote some of the ranges it saw then; the cluster split and merged since
      List<KeySpan> done = new ArrayList<>(tiling(g).stream().filter(r -> r.overlaps(span) && g.nextBoolean()).toList());
      List<KeySpan> current = tiling(g);
      ResumePlan plan = ResumePlan.of(done, current, span);
      List<KeySpan> result = new ArrayList<>();
      plan.keep().forEach(i -> result.add(done.get(i)));
      plan.export().forEach(i -> result.add(current.get(i)));
      for (Key k : KEYS) {
        if (span.contains(k)) {
          assertThat(holders(result, k)).as("key %s done %s current %s span %s plan %s", k, done, current, span, plan)
              .isEqualTo(1);
        }
      }
      // nothing already written is exported again unless the cluster's ranges changed over it
      for (int c : plan.export()) {
        KeySpan inside = current.get(c).intersect(span).orElseThrow();
        assertThat(Coverage.uncovered(done, inside).isEmpty() && done.stream()
            .filter(d -> d.overlaps(current.get(c))).allMatch(d -> current.get(c).covers(d) && d.covers(current.get(c))))
            .as("range %s exported though written as it is", current.get(c)).isFalse();
      }
    });
  }
}
