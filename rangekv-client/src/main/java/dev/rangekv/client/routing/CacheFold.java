package dev.rangekv.client.routing;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Folds descriptors from many sources (cached ones, several nodes' listings, some stale, some maybe
 * garbage) into one tiling: higher generations win (docs/architecture.md, invariant 3), a descriptor overlapping a
 * newer one already placed is dropped, and spans nobody covers become placeholders (no replicas,
 * generation 0) that make the router refresh instead of guessing. Pure.
 */
public final class CacheFold {
  /** The range id of placeholders; real range ids are positive. */
  public static final long UNKNOWN_RANGE_ID = -1;

  private CacheFold() {}

  /** A placeholder for {@code [start, end)}: routes nowhere, so a lookup landing there refreshes. */
  public static RangeDescriptor placeholder(Key start, RangeEnd end) {
    return new RangeDescriptor(UNKNOWN_RANGE_ID, start, end, List.of(), 0);
  }

  public static boolean isPlaceholder(RangeDescriptor d) {
    return d.rangeId() == UNKNOWN_RANGE_ID || d.replicas().isEmpty();
  }

  /**
   * The tiling of {@code news} over {@code current}: by generation, newest first; on equal generations
   * {@code news} before {@code current}, then by range id, so the result does not depend on input order.
   */
  public static RangeMap fold(Collection<RangeDescriptor> current, Collection<RangeDescriptor> news) {
    record Candidate(RangeDescriptor d, int rank) {}
    List<Candidate> all = new ArrayList<>();
    news.forEach(d -> all.add(new Candidate(d, 0)));
    current.forEach(d -> all.add(new Candidate(d, 1)));
    all.sort(Comparator.comparingLong((Candidate c) -> -c.d().generation())
        .thenComparingInt(Candidate::rank)
        .thenComparingLong(c -> c.d().rangeId())
        .thenComparing(c -> c.d().start()));
    TreeMap<Key, RangeDescriptor> placed = new TreeMap<>();
    for (Candidate c : all) {
      RangeDescriptor d = c.d();
      if (!isPlaceholder(d) && fits(placed, d)) {
        placed.put(d.start(), d);
      }
    }
    List<RangeDescriptor> tiling = new ArrayList<>(placed.size() * 2 + 1);
    Key cursor = Key.EMPTY;
    for (RangeDescriptor d : placed.values()) {
      if (cursor.compareTo(d.start()) < 0) {
        tiling.add(placeholder(cursor, RangeEnd.at(d.start())));
      }
      tiling.add(d);
      if (d.end().isInfinite()) {
        return RangeMap.of(tiling);
      }
      cursor = d.end().key();
    }
    tiling.add(placeholder(cursor, RangeEnd.INFINITY));
    return RangeMap.of(tiling);
  }

  private static boolean fits(TreeMap<Key, RangeDescriptor> placed, RangeDescriptor d) {
    Map.Entry<Key, RangeDescriptor> below = placed.floorEntry(d.start());
    if (below != null && below.getValue().end().isAbove(d.start())) {
      return false;
    }
    Map.Entry<Key, RangeDescriptor> above = placed.higherEntry(d.start());
    return above == null || !d.end().isAbove(above.getKey());
  }
}
