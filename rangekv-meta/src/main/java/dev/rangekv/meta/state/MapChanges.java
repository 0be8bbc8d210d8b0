package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How a holder of the map at version {@code v} applies {@code changesSince(v)}: a full answer
 * replaces the map; otherwise every held descriptor that overlaps a changed one is dropped and the
 * changed ones are inserted. Spans, not ids, decide: a provisional remnant shares its id with the
 * real descriptor it was cut from, and an entry unchanged since {@code v} is, by construction, the
 * very entry the holder has. Removed ids are only a hint for id-indexed caches.
 */
public final class MapChanges {
  private static final Comparator<ByteString> BYTES = ByteString.unsignedLexicographicalComparator();

  private MapChanges() {}

  /** The map after {@code changes}, in key order; {@code base} is the map at the asked version, in key order. */
  public static List<RangeDescriptorProto> apply(List<RangeDescriptorProto> base, GetMapResponse changes) {
    if (changes.getFull()) {
      return List.copyOf(changes.getRangesList());
    }
    List<RangeDescriptorProto> changed = new ArrayList<>(changes.getRangesList());
    changed.sort((a, b) -> BYTES.compare(a.getStart(), b.getStart()));
    List<RangeDescriptorProto> out = new ArrayList<>(base.size() + changed.size());
    int j = 0; // changed descriptors do not overlap each other: one sweep over both lists
    for (RangeDescriptorProto held : base) {
      while (j < changed.size() && !RangeTable.endAbove(changed.get(j), held.getStart())) {
        j++;
      }
      if (j == changed.size() || !overlaps(held, changed.get(j))) {
        out.add(held);
      }
    }
    out.addAll(changed);
    out.sort((a, b) -> BYTES.compare(a.getStart(), b.getStart()));
    return List.copyOf(out);
  }

  private static boolean overlaps(RangeDescriptorProto a, RangeDescriptorProto b) {
    return RangeTable.endAbove(a, b.getStart()) && RangeTable.endAbove(b, a.getStart());
  }
}
