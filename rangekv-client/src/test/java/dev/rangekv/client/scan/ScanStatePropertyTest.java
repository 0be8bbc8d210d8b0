package dev.rangekv.client.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Paging and re-planning against a brute-force model: the map splits between pages, the client's cache
 * lags behind (a stale target is answered "RANGE_MOVED" and the client re-plans from the state), and
 * the scan is sometimes stopped and resumed from a cursor. The output must be the model's keys in
 * {@code [lo, hi)}, in order, limited, with no duplicates and no gaps.
 */
class ScanStatePropertyTest {

  private static Key key(Gen g) {
    return Key.of(g.smallAlphabetBytes(0, 3, 5));
  }

  @Test
  void pagedScans_underSplitsStaleCachesAndCursors_returnExactlyTheModel() {
    Property.named("scan re-planning").cases(1000).sizes(0, 40).check(g -> {
      NavigableSet<Key> data = new TreeSet<>();
      for (int i = 0; i < g.size(); i++) {
        data.add(key(g));
      }
      Key a = key(g);
      Key b = key(g);
      Key lo = a.compareTo(b) <= 0 ? a : b;
      RangeEnd hi = g.chance(0.3) ? RangeEnd.INFINITY : RangeEnd.at(a.compareTo(b) <= 0 ? b : a);
      boolean reverse = g.nextBoolean();
      long limit = g.chance(0.5) ? 0 : g.between(1, 20);
      int pageSize = g.between(1, 5);

      List<Key> expected = new ArrayList<>(hi.isInfinite() ? data.tailSet(lo, true) : data.subSet(lo, true, hi.key(), false));
      if (reverse) {
        java.util.Collections.reverse(expected);
      }
      if (limit > 0 && expected.size() > limit) {
        expected = expected.subList(0, (int) limit);
      }

      RangeMap actual = RangeMap.initial(1, List.of("n1"));
      RangeMap cache = actual;
      long nextId = 2;
      ScanOptions options = ScanOptions.defaults().withReverse(reverse).withLimit(limit).withPageSize(pageSize);
      ScanState state = ScanState.start(lo, hi, options);
      List<Key> out = new ArrayList<>();
      int guard = 0;
      while (!state.done()) {
        assertThat(guard++).as("scan terminates").isLessThan(10_000);
        if (g.chance(0.3)) {
          Key at = key(g);
          if (!at.isEmpty() && !actual.lookup(at).start().equals(at)) {
            actual = actual.split(at, nextId++);
          }
        }
        RangeDescriptor target = state.target(cache);
        if (!actual.ranges().contains(target)) {
          cache = actual; // RANGE_MOVED: learn the current descriptors and re-plan
          continue;
        }
        Key pieceLo = state.pieceLo(target);
        RangeEnd pieceHi = state.pieceHi(target);
        assertThat(target.containsSpan(pieceLo, pieceHi)).isTrue();
        int requested = state.pageLimit(pageSize);
        List<Key> page = serve(data, pieceLo, pieceHi, reverse, requested);
        out.addAll(page);
        Key last = page.isEmpty() ? pieceLo : page.get(page.size() - 1);
        state = state.after(page.size(), last, requested, pieceLo, pieceHi);
        if (!page.isEmpty() && g.chance(0.2)) {
          // stop and resume from a cursor, e.g. in the next HTTP request
          ScanCursor cursor = ScanCursor.decode(new ScanCursor(last, reverse).encode());
          long left = limit == 0 ? 0 : limit - out.size();
          if (limit != 0 && left == 0) {
            break;
          }
          state = ScanState.start(lo, hi, options.withLimit(left).withAfter(cursor));
        }
      }
      assertThat(out).isEqualTo(expected);
    });
  }

  private static List<Key> serve(NavigableSet<Key> data, Key lo, RangeEnd hi, boolean reverse, int limit) {
    NavigableSet<Key> span = hi.isInfinite() ? data.tailSet(lo, true) : data.subSet(lo, true, hi.key(), false);
    List<Key> out = new ArrayList<>();
    for (Key k : reverse ? span.descendingSet() : span) {
      if (out.size() == limit) {
        break;
      }
      out.add(k);
    }
    return out;
  }
}
