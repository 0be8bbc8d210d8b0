package dev.rangekv.core.key;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string ordered by unsigned lexicographic comparison.
 *
 * <p>The bytes are copied in and never exposed, so a {@code Key} can be shared freely between
 * threads. {@link #EMPTY} is the smallest key and the start of the first range.
 */
public final class Key implements Comparable<Key> {
  /** The empty key: the smallest key, where the first range starts. */
  public static final Key EMPTY = new Key(new byte[0]);

  private static final HexFormat HEX = HexFormat.of();

  private final byte[] bytes;
  private final long prefix;
  private int hash;

  private Key(byte[] bytes) {
    this.bytes = bytes;
    this.prefix = computePrefix(bytes);
  }

  /** A key holding a copy of {@code bytes}. */
  public static Key of(byte[] bytes) {
    return bytes.length == 0 ? EMPTY : new Key(bytes.clone());
  }

  /** A key holding a copy of {@code bytes[offset, offset + length)}. */
  public static Key of(byte[] bytes, int offset, int length) {
    return length == 0 ? EMPTY : new Key(Arrays.copyOfRange(bytes, offset, offset + length));
  }

  /** The UTF-8 bytes of {@code text}. */
  public static Key utf8(String text) {
    return of(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Parses lowercase or uppercase hex digits, e.g. {@code "00ff"}. */
  public static Key fromHex(String hex) {
    return of(HEX.parseHex(hex));
  }

  /**
   * Wraps {@code bytes} without copying; the caller gives up the array. For decoders that just built
   * the array and never touch it again.
   */
  static Key adopt(byte[] bytes) {
    return bytes.length == 0 ? EMPTY : new Key(bytes);
  }

  /** A copy of the bytes. */
  public byte[] toByteArray() {
    return bytes.clone();
  }

  /** Copies the bytes into {@code dest} at {@code offset}. */
  public void copyTo(byte[] dest, int offset) {
    System.arraycopy(bytes, 0, dest, offset, bytes.length);
  }

  public int size() {
    return bytes.length;
  }

  public boolean isEmpty() {
    return bytes.length == 0;
  }

  /** The unsigned value of the byte at {@code index}. */
  public int byteAt(int index) {
    return bytes[index] & 0xFF;
  }

  /**
   * The first 8 bytes as an unsigned big-endian long, zero-padded: a prefix whose unsigned order
   * agrees with the key order ({@code a < b} implies {@code prefix(a) <= prefix(b)}), so sorted-array
   * searches can compare longs first and bytes only on ties.
   */
  public long prefix8() {
    return prefix;
  }

  /**
   * The 8 bytes starting at {@code offset} as an unsigned big-endian long, zero-padded past the end
   * (0 when {@code offset >= size()}). {@code prefix8At(0) == prefix8()}; for keys that share their
   * first {@code offset} bytes it orders them like {@link #prefix8()} orders keys in general.
   */
  public long prefix8At(int offset) {
    if (offset == 0) {
      return prefix;
    }
    long p = 0;
    int n = Math.min(8, bytes.length - offset);
    for (int i = 0; i < n; i++) {
      p |= (bytes[offset + i] & 0xFFL) << (56 - 8 * i);
    }
    return p;
  }

  /** The length of the longest common prefix of this key and {@code other}. */
  public int commonPrefixLength(Key other) {
    int m = Arrays.mismatch(bytes, other.bytes);
    return m < 0 ? bytes.length : m;
  }

  /** The smallest key greater than this one: this key followed by a zero byte. */
  public Key successor() {
    return new Key(Arrays.copyOf(bytes, bytes.length + 1));
  }

  /**
   * The smallest bound above every key that starts with this one; +infinity when no such key exists
   * (the key is empty or all {@code 0xFF}).
   */
  public RangeEnd prefixEnd() {
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] != (byte) 0xFF) {
        byte[] end = Arrays.copyOf(bytes, i + 1);
        end[i]++;
        return RangeEnd.at(new Key(end));
      }
    }
    return RangeEnd.INFINITY;
  }

  public boolean startsWith(Key prefixKey) {
    return bytes.length >= prefixKey.bytes.length
        && Arrays.equals(bytes, 0, prefixKey.bytes.length, prefixKey.bytes, 0, prefixKey.bytes.length);
  }

  /** This key followed by {@code suffix}. */
  public Key concat(Key suffix) {
    byte[] out = Arrays.copyOf(bytes, bytes.length + suffix.bytes.length);
    System.arraycopy(suffix.bytes, 0, out, bytes.length, suffix.bytes.length);
    return adopt(out);
  }

  /** The first {@code length} bytes. */
  public Key prefix(int length) {
    return length >= bytes.length ? this : of(bytes, 0, length);
  }

  public String toHex() {
    return HEX.formatHex(bytes);
  }

  /** The bytes as UTF-8 text (malformed sequences replaced). */
  public String toUtf8() {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  public boolean isBefore(Key other) {
    return compareTo(other) < 0;
  }

  @Override
  public int compareTo(Key other) {
    if (prefix != other.prefix) {
      return Long.compareUnsigned(prefix, other.prefix);
    }
    return Arrays.compareUnsigned(bytes, other.bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Key k && prefix == k.prefix && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h = Arrays.hashCode(bytes);
      hash = h;
    }
    return h;
  }

  /** The most bytes {@link #toString} shows: a message or log line with an 8 KiB key stays readable. */
  public static final int SHOWN_BYTES = 64;

  /**
   * A readable rendering: printable ASCII as is, other bytes as {@code \xNN}, backslash and quote
   * escaped, the whole in double quotes. A key longer than {@link #SHOWN_BYTES} shows its first
   * {@code SHOWN_BYTES} bytes then {@code ...} and its length, e.g. {@code "aaaa..."(9000 bytes)}.
   */
  @Override
  public String toString() {
    return render(SHOWN_BYTES);
  }

  /** The rendering of {@link #toString} without the cut: for output that shows data, not messages. */
  public String toFullString() {
    return render(Integer.MAX_VALUE);
  }

  private String render(int maxBytes) {
    int shown = Math.min(bytes.length, maxBytes);
    StringBuilder sb = new StringBuilder(shown + 2).append('"');
    for (int i = 0; i < shown; i++) {
      int c = bytes[i] & 0xFF;
      if (c == '\\' || c == '"') {
        sb.append('\\').append((char) c);
      } else if (c >= 0x20 && c < 0x7F) {
        sb.append((char) c);
      } else {
        sb.append("\\x").append(HEX.toHexDigits((byte) c));
      }
    }
    if (shown < bytes.length) {
      return sb.append("...\"(").append(bytes.length).append(" bytes)").toString();
    }
    return sb.append('"').toString();
  }

  private static long computePrefix(byte[] b) {
    long p = 0;
    int n = Math.min(8, b.length);
    for (int i = 0; i < n; i++) {
      p |= (b[i] & 0xFFL) << (56 - 8 * i);
    }
    return p;
  }
}
