package dev.rangekv.meta.state;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The meta range map: descriptors keyed by start key, tiling {@code ["", +inf)} once bootstrapped,
 * each with the replica addresses it was reported with, its provisional flag and the map version that
 * last changed it, plus a bounded list of recent removals for {@link #removedSince}. Immutable; every
 * update returns a new table.
 *
 * <p>The replace rule is core's {@code Tiling.apply}, kept here with the addresses: a descriptor
 * replaces what it overlaps only when its generation is higher than each of theirs; overlapped entries
 * reaching outside it are trimmed to those parts, keep id, old generation and addresses, and become
 * provisional until a higher generation covers them. Generations strictly increase along the history of
 * every key, so this converges to the true map once every true descriptor was reported.
 */
final class RangeTable {
  /**
   * One map entry (see {@code MetaRangeEntry}).
   *
   * @param addresses the client address of each replica's node, as the reporter knew it ({@code ""} when it did not)
   */
  record Entry(RangeDescriptor range, Map<String, String> addresses, boolean provisional, long changedAt) {
    Entry {
      addresses = Map.copyOf(addresses);
    }
  }

  /** A range id that left the map at {@code version}. */
  record Removal(long rangeId, long version) {}

  private final List<Entry> entries;
  private final List<Removal> removals;
  private final int maxRemovals;
  private final Map<Long, Integer> bestById;
  private final Set<Long> provisionalIds;

  private RangeTable(List<Entry> entries, List<Removal> removals, int maxRemovals) {
    this.entries = List.copyOf(entries);
    this.removals = List.copyOf(removals);
    this.maxRemovals = maxRemovals;
    Map<Long, Integer> best = new HashMap<>(entries.size() * 2);
    Set<Long> provisional = new HashSet<>();
    for (int i = 0; i < this.entries.size(); i++) {
      Entry e = this.entries.get(i);
      if (e.provisional()) {
        provisional.add(e.range().rangeId());
      }
      Integer seen = best.get(e.range().rangeId());
      if (seen == null || better(e, this.entries.get(seen))) {
        best.put(e.range().rangeId(), i);
      }
    }
    this.bestById = best;
    this.provisionalIds = provisional;
  }

  /** A real entry beats a provisional one; then the higher generation. */
  private static boolean better(Entry a, Entry b) {
    if (a.provisional() != b.provisional()) {
      return !a.provisional();
    }
    return a.range().generation() > b.range().generation();
  }

  static RangeTable empty(int maxRemovals) {
    return new RangeTable(List.of(), List.of(), maxRemovals);
  }

  /**
   * @throws MalformedMetaCommandException when {@code entries} (in key order) do not tile
   */
  static RangeTable restore(List<Entry> entries, List<Removal> removals, int maxRemovals) {
    if (!entries.isEmpty()) {
      checkTiling(entries.stream().map(Entry::range).toList());
    }
    int from = Math.max(0, removals.size() - maxRemovals);
    return new RangeTable(entries, removals.subList(from, removals.size()), maxRemovals);
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  List<Entry> entries() {
    return entries;
  }

  List<Removal> removals() {
    return removals;
  }

  /**
   * The highest range id the table names, in its entries or its recent removals (0 when none): the
   * range-id allocator grants above it.
   */
  long highestRangeId() {
    long max = 0;
    for (Entry e : entries) {
      max = Math.max(max, e.range().rangeId());
    }
    for (Removal r : removals) {
      max = Math.max(max, r.rangeId());
    }
    return max;
  }

  /** The first map of a cluster, every entry changed at {@code version}. */
  RangeTable bootstrap(List<ReportedRange> ranges, long version) {
    List<ReportedRange> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparing(r -> r.descriptor().start()));
    checkTiling(sorted.stream().map(ReportedRange::descriptor).toList());
    return new RangeTable(sorted.stream().map(r -> new Entry(r.descriptor(), r.addresses(), false, version)).toList(),
        removals, maxRemovals);
  }

  /**
   * Applies reported descriptors in ascending generation order; returns this same table when none
   * changed anything (or the map is not bootstrapped yet).
   */
  RangeTable report(List<ReportedRange> reported, long version) {
    if (reported.isEmpty() || entries.isEmpty()) {
      return this; // not bootstrapped yet: the bootstrap installs the first map, reports refine it
    }
    List<ReportedRange> ordered = new ArrayList<>(reported);
    ordered.sort(Comparator.comparingLong(r -> r.descriptor().generation()));
    List<Entry> working = null;
    for (ReportedRange r : ordered) {
      if (isStale(working == null ? entries : working, r.descriptor())) {
        continue;
      }
      if (working == null) {
        working = new ArrayList<>(entries);
      }
      install(working, r, version);
    }
    if (working == null) {
      return this;
    }
    return new RangeTable(working, removalsAfter(working, version), maxRemovals);
  }

  private List<Removal> removalsAfter(List<Entry> next, long version) {
    Set<Long> now = new HashSet<>();
    next.forEach(e -> now.add(e.range().rangeId()));
    Set<Long> gone = new LinkedHashSet<>();
    entries.forEach(e -> {
      if (!now.contains(e.range().rangeId())) {
        gone.add(e.range().rangeId());
      }
    });
    if (gone.isEmpty()) {
      return removals;
    }
    List<Removal> out = new ArrayList<>(removals);
    gone.forEach(id -> out.add(new Removal(id, version)));
    return out.size() > maxRemovals ? out.subList(out.size() - maxRemovals, out.size()) : out;
  }

  /** True when some entry {@code d} overlaps has a generation at least as high (stale or known). */
  private static boolean isStale(List<Entry> list, RangeDescriptor d) {
    int first = floor(list, d.start());
    for (int k = first; k < list.size() && d.end().isAbove(list.get(k).range().start()); k++) {
      if (list.get(k).range().generation() >= d.generation()) {
        return true;
      }
    }
    return false;
  }

  private static void install(List<Entry> list, ReportedRange r, long version) {
    RangeDescriptor d = r.descriptor();
    int first = floor(list, d.start());
    int last = first;
    while (last + 1 < list.size() && d.end().isAbove(list.get(last + 1).range().start())) {
      last++;
    }
    List<Entry> replacement = new ArrayList<>(3);
    Entry left = list.get(first);
    if (left.range().start().compareTo(d.start()) < 0) {
      RangeDescriptor l = left.range();
      replacement.add(new Entry(l.withSpan(l.start(), RangeEnd.at(d.start()), l.generation()), left.addresses(),
          true, version));
    }
    replacement.add(new Entry(d, r.addresses(), false, version));
    Entry right = list.get(last);
    if (!d.end().isInfinite() && right.range().end().isAbove(d.end().key())) {
      RangeDescriptor rr = right.range();
      replacement.add(new Entry(rr.withSpan(d.end().key(), rr.end(), rr.generation()), right.addresses(), true,
          version));
    }
    List<Entry> window = list.subList(first, last + 1);
    window.clear();
    window.addAll(replacement);
  }

  /** The entry holding {@code key}: the greatest start {@code <=} key. */
  Entry lookup(Key key) {
    return entries.get(floor(entries, key));
  }

  /**
   * The entry holding {@code key} and the entries after it that start below {@code end}, at most
   * {@code limit} (at least one) in all, in key order.
   */
  List<RangeDescriptor> span(Key key, RangeEnd end, int limit) {
    List<RangeDescriptor> out = new ArrayList<>();
    for (int i = floor(entries, key); i < entries.size() && out.size() < Math.max(1, limit); i++) {
      RangeDescriptor r = entries.get(i).range();
      if (!out.isEmpty() && !end.isAbove(r.start())) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  /** The real entry of {@code rangeId} if it has one, else its highest-generation remnant. */
  Optional<Entry> byId(long rangeId) {
    Integer i = bestById.get(rangeId);
    return i == null ? Optional.empty() : Optional.of(entries.get(i));
  }

  /** The entry whose descriptor is {@code d} (a real one or a remnant), if the map holds it. */
  Optional<Entry> entryOf(RangeDescriptor d) {
    Optional<Entry> best = byId(d.rangeId());
    if (best.isPresent() && best.get().range().equals(d)) {
      return best;
    }
    if (entries.isEmpty()) {
      return Optional.empty();
    }
    Entry at = lookup(d.start());
    return at.range().equals(d) ? Optional.of(at) : Optional.empty();
  }

  /** True when any entry of {@code rangeId} is a provisional remnant. */
  boolean provisional(long rangeId) {
    return provisionalIds.contains(rangeId);
  }

  /**
   * True when the removals kept cannot answer for {@code sinceVersion}: the list is full (older
   * removals may have been dropped) and its oldest is newer than that version.
   */
  boolean removalsTooOld(long sinceVersion) {
    return removals.size() >= maxRemovals && !removals.isEmpty() && sinceVersion < removals.get(0).version();
  }

  /** Range ids removed after {@code sinceVersion} that are not in the map now. */
  List<Long> removedSince(long sinceVersion) {
    Set<Long> out = new LinkedHashSet<>();
    for (Removal r : removals) {
      if (r.version() > sinceVersion && !bestById.containsKey(r.rangeId())) {
        out.add(r.rangeId());
      }
    }
    return List.copyOf(out);
  }

  private static int floor(List<Entry> list, Key key) {
    int lo = 0;
    int hi = list.size();
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (list.get(mid).range().start().compareTo(key) <= 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Fails unless {@code ranges} (in key order) chain from the empty key to +infinity. */
  static void checkTiling(List<RangeDescriptor> ranges) {
    if (ranges.isEmpty() || !ranges.get(0).start().isEmpty()) {
      throw new MalformedMetaCommandException("ranges must start at the empty key");
    }
    if (!ranges.get(ranges.size() - 1).end().isInfinite()) {
      throw new MalformedMetaCommandException("the last range must end at +infinity");
    }
    for (int i = 0; i + 1 < ranges.size(); i++) {
      RangeDescriptor a = ranges.get(i);
      if (a.end().isInfinite() || !a.end().key().equals(ranges.get(i + 1).start())) {
        throw new MalformedMetaCommandException("ranges do not tile: r" + a.rangeId() + " is followed by r"
            + ranges.get(i + 1).rangeId() + " with a gap or an overlap");
      }
    }
  }
}
