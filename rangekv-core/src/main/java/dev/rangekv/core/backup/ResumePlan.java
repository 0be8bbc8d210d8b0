package dev.rangekv.core.backup;

import java.util.ArrayList;
import java.util.List;

/**
 * What a resumed backup does: which ranges an interrupted run already wrote it keeps, and which of the
 * cluster's current ranges it exports. A current range is exported when part of it (inside the span) is
 * not held by a kept range; a kept range that overlaps an exported one is dropped (the range split or
 * merged since). Together the kept and exported ranges hold every key of the span exactly once, given
 * that the current ranges tile the keyspace and the done ones do not overlap.
 *
 * @param keep indexes into the done ranges, ascending
 * @param export indexes into the current ranges, ascending
 */
public record ResumePlan(List<Integer> keep, List<Integer> export) {
  public ResumePlan {
    keep = List.copyOf(keep);
    export = List.copyOf(export);
  }

  /** The plan for {@code span}, given the ranges already written and the cluster's current ranges. */
  public static ResumePlan of(List<KeySpan> done, List<KeySpan> current, KeySpan span) {
    List<Integer> keep = new ArrayList<>();
    for (int i = 0; i < done.size(); i++) {
      keep.add(i);
    }
    while (true) {
      List<KeySpan> kept = keep.stream().map(done::get).toList();
      List<Integer> export = new ArrayList<>();
      for (int c = 0; c < current.size(); c++) {
        var inside = current.get(c).intersect(span);
        if (inside.isPresent() && !Coverage.uncovered(kept, inside.get()).isEmpty()) {
          export.add(c);
        }
      }
      List<Integer> next = keep.stream()
          .filter(k -> export.stream().noneMatch(c -> current.get(c).overlaps(done.get(k))))
          .toList();
      if (next.size() == keep.size()) {
        return new ResumePlan(keep, export);
      }
      keep = new ArrayList<>(next);
    }
  }
}
