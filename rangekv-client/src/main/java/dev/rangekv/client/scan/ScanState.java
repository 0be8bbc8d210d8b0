package dev.rangekv.client.scan;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.Objects;

/**
 * The unfinished part of a scan: the span {@code [lo, hi)} not yet returned, the direction, and how
 * many entries may still be returned. Pure: the next page's range is planned from whatever cache map
 * is current ({@link #target}), and a page's result advances the state by the last key received, so
 * after a split only the unfinished part is re-planned and no key is returned twice or skipped.
 *
 * @param lo inclusive start of what is left
 * @param hi exclusive end of what is left
 * @param reverse descending when true: pages are taken from the top of the span
 * @param remaining entries still allowed; negative means unlimited
 * @param exhausted the whole span has been read
 */
public record ScanState(Key lo, RangeEnd hi, boolean reverse, long remaining, boolean exhausted) {

  public ScanState {
    Objects.requireNonNull(lo, "lo");
    Objects.requireNonNull(hi, "hi");
  }

  /** The state of a scan of {@code [lo, hi)} with {@code options} (limit, direction, cursor). */
  public static ScanState start(Key lo, RangeEnd hi, ScanOptions options) {
    Key l = lo;
    RangeEnd h = hi;
    if (options.after().isPresent()) {
      Key last = options.after().get().lastKey();
      if (options.reverse()) {
        h = RangeEnd.min(h, RangeEnd.at(last));
      } else if (l.compareTo(last) <= 0) {
        l = last.successor();
      }
    }
    return new ScanState(l, h, options.reverse(), options.limit() == 0 ? -1 : options.limit(), false);
  }

  public boolean done() {
    return exhausted || remaining == 0 || !hi.isAbove(lo);
  }

  /** Entries to request in the next page. */
  public int pageLimit(int pageSize) {
    return remaining < 0 ? pageSize : (int) Math.min(pageSize, remaining);
  }

  /** The range that serves the next page under {@code map}: the one holding the next key to return. */
  public RangeDescriptor target(RangeMap map) {
    if (!reverse) {
      return map.lookup(lo);
    }
    if (hi.isInfinite()) {
      return map.get(map.size() - 1);
    }
    int i = map.indexOf(hi.key());
    // the range starting exactly at hi holds nothing below hi
    return map.get(i).start().equals(hi.key()) ? map.get(i - 1) : map.get(i);
  }

  /** The page's span inside {@code range}: this state's span clipped to it. */
  public Key pieceLo(RangeDescriptor range) {
    return reverse && range.start().compareTo(lo) > 0 ? range.start() : lo;
  }

  public RangeEnd pieceHi(RangeDescriptor range) {
    return reverse ? hi : RangeEnd.min(range.end(), hi);
  }

  /**
   * The state after a page of {@code received} entries (the last one {@code lastKey}) was read from the
   * piece {@code [pieceLo, pieceHi)} with limit {@code requested}. A full page resumes after its last
   * key; a short page means the piece is exhausted, so the scan moves past the piece's far end.
   */
  public ScanState after(int received, Key lastKey, int requested, Key pieceLo, RangeEnd pieceHi) {
    long left = remaining < 0 ? -1 : Math.max(0, remaining - received);
    if (received >= requested) {
      return reverse
          ? new ScanState(lo, RangeEnd.at(lastKey), true, left, false)
          : new ScanState(lastKey.successor(), hi, false, left, false);
    }
    if (reverse) {
      return pieceLo.isEmpty()
          ? new ScanState(lo, hi, true, left, true)
          : new ScanState(lo, RangeEnd.min(hi, RangeEnd.at(pieceLo)), true, left, false);
    }
    return pieceHi.isInfinite()
        ? new ScanState(lo, hi, false, left, true)
        : new ScanState(pieceHi.key().compareTo(lo) > 0 ? pieceHi.key() : lo, hi, false, left, false);
  }
}
