package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.meta.MetaRangeEntry;
import dev.rangekv.proto.meta.Removal;
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
 * each with its provisional flag and the map version that last changed it, plus a bounded list of
 * recent removals for {@link #changesSince}. Immutable; every update returns a new table.
 *
 * <p>The replace rule is core's {@code Tiling.apply} on the proto (which carries replica addresses):
 * a descriptor replaces what it overlaps only when its generation is higher than each of theirs;
 * overlapped entries reaching outside it are trimmed to those parts, keep id and old generation, and
 * become provisional until a higher generation covers them. Generations strictly increase along the
 * history of every key, so this converges to the true map once every true descriptor was reported.
 */
final class RangeTable {
  private static final Comparator<ByteString> BYTES = ByteString.unsignedLexicographicalComparator();

  /** One map entry (see {@link MetaRangeEntry}). */
  record Entry(RangeDescriptorProto range, boolean provisional, long changedAt) {}

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
        provisional.add(e.range().getRangeId());
      }
      Integer seen = best.get(e.range().getRangeId());
      if (seen == null || better(e, this.entries.get(seen))) {
        best.put(e.range().getRangeId(), i);
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
    return a.range().getGeneration() > b.range().getGeneration();
  }

  static RangeTable empty(int maxRemovals) {
    return new RangeTable(List.of(), List.of(), maxRemovals);
  }

  static RangeTable restore(List<MetaRangeEntry> entries, List<Removal> removals, int maxRemovals) {
    List<Entry> list = new ArrayList<>(entries.size());
    for (MetaRangeEntry e : entries) {
      list.add(new Entry(e.getRange(), e.getProvisional(), e.getChangedAtVersion()));
    }
    if (!list.isEmpty()) {
      checkTiling(list.stream().map(Entry::range).toList());
    }
    int from = Math.max(0, removals.size() - maxRemovals);
    return new RangeTable(list, removals.subList(from, removals.size()), maxRemovals);
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
      max = Math.max(max, e.range().getRangeId());
    }
    for (Removal r : removals) {
      max = Math.max(max, r.getRangeId());
    }
    return max;
  }

  /** The first map of a cluster, every entry changed at {@code version}. */
  RangeTable bootstrap(List<RangeDescriptorProto> ranges, long version) {
    List<RangeDescriptorProto> sorted = new ArrayList<>(ranges);
    sorted.forEach(RangeTable::checkDescriptor);
    sorted.sort((a, b) -> BYTES.compare(a.getStart(), b.getStart()));
    checkTiling(sorted);
    return new RangeTable(sorted.stream().map(r -> new Entry(r, false, version)).toList(), removals, maxRemovals);
  }

  /**
   * Applies reported descriptors in ascending generation order; returns this same table when none
   * changed anything (or the map is not bootstrapped yet). Fails with {@link
   * MalformedMetaCommandException} on an invalid span, before changing anything.
   */
  RangeTable report(List<RangeDescriptorProto> reported, long version) {
    if (reported.isEmpty()) {
      return this;
    }
    reported.forEach(RangeTable::checkDescriptor);
    if (entries.isEmpty()) {
      return this; // not bootstrapped yet: the bootstrap installs the first map, reports refine it
    }
    List<RangeDescriptorProto> ordered = new ArrayList<>(reported);
    ordered.sort(Comparator.comparingLong(RangeDescriptorProto::getGeneration));
    List<Entry> working = null;
    for (RangeDescriptorProto d : ordered) {
      if (isStale(working == null ? entries : working, d)) {
        continue;
      }
      if (working == null) {
        working = new ArrayList<>(entries);
      }
      install(working, d, version);
    }
    if (working == null) {
      return this;
    }
    return new RangeTable(working, removalsAfter(working, version), maxRemovals);
  }

  private List<Removal> removalsAfter(List<Entry> next, long version) {
    Set<Long> now = new HashSet<>();
    next.forEach(e -> now.add(e.range().getRangeId()));
    Set<Long> gone = new LinkedHashSet<>();
    entries.forEach(e -> {
      if (!now.contains(e.range().getRangeId())) {
        gone.add(e.range().getRangeId());
      }
    });
    if (gone.isEmpty()) {
      return removals;
    }
    List<Removal> out = new ArrayList<>(removals);
    gone.forEach(id -> out.add(Removal.newBuilder().setRangeId(id).setVersion(version).build()));
    return out.size() > maxRemovals ? out.subList(out.size() - maxRemovals, out.size()) : out;
  }

  /** True when some entry {@code d} overlaps has a generation at least as high (stale or known). */
  private static boolean isStale(List<Entry> list, RangeDescriptorProto d) {
    int first = floor(list, d.getStart());
    for (int k = first; k < list.size() && endAbove(d, list.get(k).range().getStart()); k++) {
      if (list.get(k).range().getGeneration() >= d.getGeneration()) {
        return true;
      }
    }
    return false;
  }

  private static void install(List<Entry> list, RangeDescriptorProto d, long version) {
    int first = floor(list, d.getStart());
    int last = first;
    while (last + 1 < list.size() && endAbove(d, list.get(last + 1).range().getStart())) {
      last++;
    }
    List<Entry> replacement = new ArrayList<>(3);
    RangeDescriptorProto left = list.get(first).range();
    if (BYTES.compare(left.getStart(), d.getStart()) < 0) {
      replacement.add(new Entry(left.toBuilder().setEnd(d.getStart()).setEndInfinite(false).build(), true, version));
    }
    replacement.add(new Entry(d, false, version));
    RangeDescriptorProto right = list.get(last).range();
    if (!d.getEndInfinite() && endAbove(right, d.getEnd())) {
      replacement.add(new Entry(right.toBuilder().setStart(d.getEnd()).build(), true, version));
    }
    List<Entry> window = list.subList(first, last + 1);
    window.clear();
    window.addAll(replacement);
  }

  /** The entry holding {@code key}: the greatest start {@code <=} key. */
  Entry lookup(ByteString key) {
    return entries.get(floor(entries, key));
  }

  /**
   * The entry holding {@code key} and the entries after it that start below {@code end} (when {@code
   * endInfinite} is false), at most {@code limit} (at least one) in all, in key order.
   */
  List<RangeDescriptorProto> span(ByteString key, ByteString end, boolean endInfinite, int limit) {
    List<RangeDescriptorProto> out = new ArrayList<>();
    for (int i = floor(entries, key); i < entries.size() && out.size() < Math.max(1, limit); i++) {
      RangeDescriptorProto r = entries.get(i).range();
      if (!out.isEmpty() && !endInfinite && BYTES.compare(r.getStart(), end) >= 0) {
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

  /** True when any entry of {@code rangeId} is a provisional remnant. */
  boolean provisional(long rangeId) {
    return provisionalIds.contains(rangeId);
  }

  /**
   * True when the removals kept cannot answer for {@code sinceVersion}: the list is full (older
   * removals may have been dropped) and its oldest is newer than that version.
   */
  boolean removalsTooOld(long sinceVersion) {
    return removals.size() >= maxRemovals && !removals.isEmpty() && sinceVersion < removals.get(0).getVersion();
  }

  /** Range ids removed after {@code sinceVersion} that are not in the map now. */
  List<Long> removedSince(long sinceVersion) {
    Set<Long> out = new LinkedHashSet<>();
    for (Removal r : removals) {
      if (r.getVersion() > sinceVersion && !bestById.containsKey(r.getRangeId())) {
        out.add(r.getRangeId());
      }
    }
    return List.copyOf(out);
  }

  private static int floor(List<Entry> list, ByteString key) {
    int lo = 0;
    int hi = list.size();
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (BYTES.compare(list.get(mid).range().getStart(), key) <= 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** True when {@code key} lies before the end of {@code r}. */
  static boolean endAbove(RangeDescriptorProto r, ByteString key) {
    return r.getEndInfinite() || BYTES.compare(r.getEnd(), key) > 0;
  }

  static void checkDescriptor(RangeDescriptorProto r) {
    if (!endAbove(r, r.getStart())) {
      throw new MalformedMetaCommandException("empty or inverted range r" + r.getRangeId() + " start="
          + r.getStart().toStringUtf8() + " end=" + r.getEnd().toStringUtf8());
    }
  }

  /** Fails unless {@code ranges} (in key order) chain from the empty key to +infinity. */
  static void checkTiling(List<RangeDescriptorProto> ranges) {
    if (ranges.isEmpty() || !ranges.get(0).getStart().isEmpty()) {
      throw new MalformedMetaCommandException("ranges must start at the empty key");
    }
    if (!ranges.get(ranges.size() - 1).getEndInfinite()) {
      throw new MalformedMetaCommandException("the last range must end at +infinity");
    }
    for (int i = 0; i + 1 < ranges.size(); i++) {
      RangeDescriptorProto a = ranges.get(i);
      if (a.getEndInfinite() || !a.getEnd().equals(ranges.get(i + 1).getStart())) {
        throw new MalformedMetaCommandException("ranges do not tile: r" + a.getRangeId() + " is followed by r"
            + ranges.get(i + 1).getRangeId() + " with a gap or an overlap");
      }
    }
  }
}
