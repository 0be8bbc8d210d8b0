package dev.rangekv.core.backup;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.Objects;
import java.util.Optional;

/**
 * A non-empty span of keys {@code [start, end)}.
 *
 * @param start inclusive first key
 * @param end exclusive end ({@link RangeEnd#INFINITY}: every key from start on)
 */
public record KeySpan(Key start, RangeEnd end) {
  /** Every key. */
  public static final KeySpan ALL = new KeySpan(Key.EMPTY, RangeEnd.INFINITY);

  public KeySpan {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    if (!end.isAbove(start)) {
      throw new IllegalArgumentException("empty span: start=" + start + " end=" + end);
    }
  }

  /** The keys starting with {@code prefix} (every key for the empty prefix). */
  public static KeySpan prefix(Key prefix) {
    return new KeySpan(prefix, prefixEnd(prefix));
  }

  /** The first end above every key starting with {@code prefix}: infinity when the prefix is all 0xff. */
  public static RangeEnd prefixEnd(Key prefix) {
    byte[] b = prefix.toByteArray();
    for (int i = b.length - 1; i >= 0; i--) {
      if (b[i] != (byte) 0xff) {
        b[i]++;
        return RangeEnd.at(Key.of(java.util.Arrays.copyOf(b, i + 1)));
      }
    }
    return RangeEnd.INFINITY;
  }

  public boolean contains(Key k) {
    return start.compareTo(k) <= 0 && end.isAbove(k);
  }

  /** True when every key of {@code other} is in this span. */
  public boolean covers(KeySpan other) {
    return start.compareTo(other.start) <= 0 && end.compareTo(other.end) >= 0;
  }

  public boolean overlaps(KeySpan other) {
    return end.isAbove(other.start) && other.end.isAbove(start);
  }

  /** The keys in both spans, if any. */
  public Optional<KeySpan> intersect(KeySpan other) {
    Key lo = start.compareTo(other.start) >= 0 ? start : other.start;
    RangeEnd hi = RangeEnd.min(end, other.end);
    return hi.isAbove(lo) ? Optional.of(new KeySpan(lo, hi)) : Optional.empty();
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ")";
  }
}
