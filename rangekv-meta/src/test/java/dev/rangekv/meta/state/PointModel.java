package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The brute-force model of the meta map: one slot per point of {@link ClusterModel}'s key universe,
 * holding the descriptor whose entry covers it, the entry's provisional flag and an entry identity
 * (an entry is a maximal run of points with one identity). Installing a descriptor: reject it when
 * any of its points holds a generation at least as high; else its points get a fresh entry, and the
 * points of every entry it overlapped that lie outside it become provisional remnants, one fresh
 * entry on each side.
 */
final class PointModel {
  private final RangeDescriptorProto[] desc = new RangeDescriptorProto[ClusterModel.POINTS + 1];
  private final boolean[] provisional = new boolean[ClusterModel.POINTS + 1];
  private final int[] entry = new int[ClusterModel.POINTS + 1];
  private int nextEntry = 1;

  PointModel(List<RangeDescriptorProto> bootstrap) {
    for (RangeDescriptorProto d : bootstrap) {
      int e = nextEntry++;
      for (int p : points(d)) {
        desc[p] = d;
        entry[p] = e;
      }
    }
  }

  RangeDescriptorProto desc(int p) {
    return desc[p];
  }

  boolean provisional(int p) {
    return provisional[p];
  }

  int entry(int p) {
    return entry[p];
  }

  /** Applies in ascending generation order; returns true when anything changed. */
  boolean report(List<RangeDescriptorProto> ds) {
    List<RangeDescriptorProto> sorted = new ArrayList<>(ds);
    sorted.sort(Comparator.comparingLong(RangeDescriptorProto::getGeneration));
    boolean changed = false;
    for (RangeDescriptorProto d : sorted) {
      changed |= install(d);
    }
    return changed;
  }

  private boolean install(RangeDescriptorProto d) {
    List<Integer> in = points(d);
    Set<Integer> overlapped = new HashSet<>();
    for (int p : in) {
      if (desc[p].getGeneration() >= d.getGeneration()) {
        return false;
      }
      overlapped.add(entry[p]);
    }
    int lo = in.get(0);
    int hi = in.get(in.size() - 1);
    int left = nextEntry++;
    int mine = nextEntry++;
    int right = nextEntry++;
    for (int p = 0; p < desc.length; p++) {
      if (p >= lo && p <= hi) {
        desc[p] = d;
        provisional[p] = false;
        entry[p] = mine;
      } else if (overlapped.contains(entry[p])) {
        provisional[p] = true;
        entry[p] = p < lo ? left : right;
      }
    }
    return true;
  }

  static List<Integer> points(RangeDescriptorProto d) {
    List<Integer> out = new ArrayList<>();
    for (int p = 0; p <= ClusterModel.POINTS; p++) {
      ByteString k = ClusterModel.key(p);
      if (ByteString.unsignedLexicographicalComparator().compare(d.getStart(), k) <= 0 && (d.getEndInfinite() || ByteString.unsignedLexicographicalComparator().compare(d.getEnd(), k) > 0)) {
        out.add(p);
      }
    }
    return out;
  }
}
