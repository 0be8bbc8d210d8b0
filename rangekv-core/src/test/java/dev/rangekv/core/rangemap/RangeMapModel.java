package dev.rangekv.core.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;

/**
 * The brute-force model of {@link RangeMap}: a plain list scanned linearly, written without the
 * index, the array edits or any cleverness, so that agreement means something.
 */
final class RangeMapModel {
  final List<RangeDescriptor> ranges;

  RangeMapModel(List<RangeDescriptor> ranges) {
    this.ranges = new ArrayList<>(ranges);
  }

  int indexOf(Key key) {
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i).contains(key)) {
        return i;
      }
    }
    throw new AssertionError("no range holds " + key + " in " + ranges);
  }

  List<ScanPiece> scanPlan(Key lo, RangeEnd hi) {
    List<ScanPiece> out = new ArrayList<>();
    for (RangeDescriptor r : ranges) {
      if (hi.isAbove(lo) && r.overlaps(lo, hi)) {
        Key pieceLo = r.start().compareTo(lo) >= 0 ? r.start() : lo;
        RangeEnd pieceHi = r.end().compareTo(hi) <= 0 ? r.end() : hi;
        out.add(new ScanPiece(r, pieceLo, pieceHi));
      }
    }
    return out;
  }

  int byId(long id) {
    int best = -1;
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i).rangeId() == id && (best < 0 || ranges.get(i).generation() > ranges.get(best).generation())) {
        best = i;
      }
    }
    return best;
  }

  /** Returns false (and changes nothing) where RangeMap must throw. */
  boolean split(Key at, long newId) {
    int i = indexOf(at);
    RangeDescriptor r = ranges.get(i);
    if (r.start().equals(at) || byId(newId) >= 0) {
      return false;
    }
    ranges.set(i, new RangeDescriptor(r.rangeId(), r.start(), RangeEnd.at(at), r.replicas(), r.generation() + 1));
    ranges.add(i + 1, new RangeDescriptor(newId, at, r.end(), r.replicas(), r.generation() + 1));
    return true;
  }

  boolean merge(long id) {
    int i = byId(id);
    if (i < 0 || i == ranges.size() - 1) {
      return false;
    }
    RangeDescriptor l = ranges.get(i);
    RangeDescriptor r = ranges.get(i + 1);
    if (!new HashSet<>(l.replicas()).equals(new HashSet<>(r.replicas()))) {
      return false;
    }
    ranges.remove(i + 1);
    ranges.set(i, new RangeDescriptor(id, l.start(), r.end(), l.replicas(),
        Math.max(l.generation(), r.generation()) + 1));
    return true;
  }

  boolean apply(RangeDescriptor d) {
    for (RangeDescriptor r : ranges) {
      if (r.overlaps(d.start(), d.end()) && r.generation() >= d.generation()) {
        return false;
      }
    }
    List<RangeDescriptor> next = new ArrayList<>();
    for (RangeDescriptor r : ranges) {
      if (!r.overlaps(d.start(), d.end())) {
        next.add(r);
        continue;
      }
      if (r.start().compareTo(d.start()) < 0) {
        next.add(new RangeDescriptor(r.rangeId(), r.start(), RangeEnd.at(d.start()), r.replicas(), r.generation()));
      }
      if (r.end().compareTo(d.end()) > 0) {
        next.add(new RangeDescriptor(r.rangeId(), d.end().key(), r.end(), r.replicas(), r.generation()));
      }
    }
    next.add(d);
    next.sort(Comparator.comparing(RangeDescriptor::start));
    ranges.clear();
    ranges.addAll(next);
    return true;
  }

  boolean applyAll(List<RangeDescriptor> ds) {
    List<RangeDescriptor> sorted = new ArrayList<>(ds);
    sorted.sort(Comparator.comparingLong(RangeDescriptor::generation));
    boolean changed = false;
    for (RangeDescriptor d : sorted) {
      changed |= apply(d);
    }
    return changed;
  }
}
