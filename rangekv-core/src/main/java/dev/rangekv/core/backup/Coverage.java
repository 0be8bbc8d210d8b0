package dev.rangekv.core.backup;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Whether ranges in key order tile a span (each key of the span in exactly one range), and what they miss. */
public final class Coverage {
  private Coverage() {}

  /** The first problem of {@code ranges} (in manifest order) as a tiling of {@code span}; empty when none. */
  public static Optional<CoverageProblem> check(List<KeySpan> ranges, KeySpan span) {
    if (ranges.isEmpty()) {
      return Optional.of(new CoverageProblem(CoverageProblem.Kind.GAP, 0, span));
    }
    Key covered = span.start(); // every key of the span below this is held by exactly one range so far
    for (int i = 0; i < ranges.size(); i++) {
      KeySpan r = ranges.get(i);
      if (!r.overlaps(span)) {
        return Optional.of(new CoverageProblem(CoverageProblem.Kind.OUTSIDE, i, r));
      }
      if (i == 0 ? r.start().compareTo(span.start()) > 0 : r.start().compareTo(covered) > 0) {
        return Optional.of(new CoverageProblem(CoverageProblem.Kind.GAP, i,
            new KeySpan(covered, RangeEnd.at(r.start()))));
      }
      if (i > 0 && r.start().compareTo(covered) < 0) {
        return Optional.of(new CoverageProblem(CoverageProblem.Kind.OVERLAP, i,
            new KeySpan(r.start(), RangeEnd.min(RangeEnd.at(covered), r.end()))));
      }
      if (r.end().compareTo(span.end()) >= 0) {
        return i == ranges.size() - 1 ? Optional.empty()
            : Optional.of(new CoverageProblem(CoverageProblem.Kind.OUTSIDE, i + 1, ranges.get(i + 1)));
      }
      covered = r.end().key();
    }
    return Optional.of(new CoverageProblem(CoverageProblem.Kind.GAP, ranges.size(), new KeySpan(covered, span.end())));
  }

  /** The parts of {@code span} that no range of {@code ranges} (any order, may overlap) holds, in key order. */
  public static List<KeySpan> uncovered(List<KeySpan> ranges, KeySpan span) {
    List<KeySpan> sorted = new ArrayList<>(ranges);
    sorted.sort((a, b) -> a.start().compareTo(b.start()));
    List<KeySpan> out = new ArrayList<>();
    Key from = span.start();
    for (KeySpan r : sorted) {
      if (!span.end().isAbove(from)) {
        return out;
      }
      if (r.start().compareTo(from) > 0) {
        RangeEnd gapEnd = RangeEnd.min(RangeEnd.at(r.start()), span.end());
        if (gapEnd.isAbove(from)) {
          out.add(new KeySpan(from, gapEnd));
        }
      }
      if (r.end().isInfinite()) {
        return out;
      }
      if (r.end().compareTo(from) > 0) {
        from = r.end().key();
      }
    }
    if (span.end().isAbove(from)) {
      out.add(new KeySpan(from, span.end()));
    }
    return out;
  }
}
