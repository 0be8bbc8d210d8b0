package dev.rangekv.core.key;

import java.util.Objects;

/**
 * The exclusive end of a range or span: either a key or +infinity, never null.
 *
 * <p>Ordered with +infinity above every key. Immutable and thread-safe.
 */
public final class RangeEnd implements Comparable<RangeEnd> {
  /** The end of the last range: above every key. */
  public static final RangeEnd INFINITY = new RangeEnd(null);

  private final Key key;

  private RangeEnd(Key key) {
    this.key = key;
  }

  /** A finite end bound at {@code key} (exclusive). */
  public static RangeEnd at(Key key) {
    return new RangeEnd(Objects.requireNonNull(key, "key"));
  }

  public boolean isInfinite() {
    return key == null;
  }

  /** The bound's key; fails for +infinity. */
  public Key key() {
    if (key == null) {
      throw new IllegalStateException("+infinity has no key");
    }
    return key;
  }

  /** True when {@code k} lies below this bound. */
  public boolean isAbove(Key k) {
    return key == null || k.compareTo(key) < 0;
  }

  /** Compares this end with a key: positive when the bound lies above the key. */
  public int compareTo(Key k) {
    return key == null ? 1 : key.compareTo(k);
  }

  @Override
  public int compareTo(RangeEnd other) {
    if (key == null || other.key == null) {
      return Boolean.compare(key == null, other.key == null);
    }
    return key.compareTo(other.key);
  }

  public static RangeEnd min(RangeEnd a, RangeEnd b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RangeEnd e && Objects.equals(key, e.key);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(key);
  }

  @Override
  public String toString() {
    return key == null ? "+inf" : key.toString();
  }
}
