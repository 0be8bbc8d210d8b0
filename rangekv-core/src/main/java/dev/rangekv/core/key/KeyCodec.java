package dev.rangekv.core.key;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Order-preserving tuple encoding: the unsigned byte order of two encoded keys equals the order of
 * their tuples.
 *
 * <p>Tuples are compared element by element; a tuple that is a prefix of another sorts first.
 * Elements of different types order by their type tag ({@code bytes < string < long < uuid <
 * timestamp}), elements of the same type by value:
 * <ul>
 *   <li>long: signed numeric order (8 bytes big-endian with the sign bit flipped);
 *   <li>string: Unicode code point order (UTF-8; note this differs from {@link String#compareTo} for
 *       characters above U+FFFF). Strings must be well-formed UTF-16 (no lone surrogates);
 *   <li>bytes (decoded as {@link Key}): unsigned lexicographic order;
 *   <li>UUID: unsigned 128-bit order of (most, least) significant bits, i.e. the byte order of the
 *       RFC 4122 form (which differs from {@link UUID#compareTo}, a signed comparison);
 *   <li>timestamp ({@link Instant}): chronological order (seconds with the sign bit flipped, then
 *       nanos).
 * </ul>
 *
 * <p>Implementation notes: variable-length elements (bytes, string) are terminated by {@code 0x00};
 * a {@code 0x00} inside them is escaped as {@code 0x00 0xFF}. Since every tag is below {@code 0xFF},
 * a terminator followed by the next element's tag sorts below an escaped zero, which keeps prefix
 * order right (the FoundationDB tuple layer uses the same trick). Stateless and thread-safe.
 */
public final class KeyCodec {
  static final int TAG_BYTES = 0x01;
  static final int TAG_STRING = 0x02;
  static final int TAG_LONG = 0x03;
  static final int TAG_UUID = 0x04;
  static final int TAG_TIMESTAMP = 0x05;

  private KeyCodec() {}

  /** Starts building an encoded tuple. */
  public static Builder tuple() {
    return new Builder();
  }

  /**
   * Encodes a tuple of {@link Long} (or {@link Integer}), {@link String}, {@link Key} or
   * {@code byte[]}, {@link UUID} and {@link Instant} elements.
   */
  public static Key encode(List<?> elements) {
    Builder b = tuple();
    for (Object e : elements) {
      b.add(e);
    }
    return b.build();
  }

  /**
   * Decodes a key built by this codec into its elements: {@link Long}, {@link String}, {@link Key}
   * (for bytes), {@link UUID} and {@link Instant}.
   *
   * @throws IllegalArgumentException when the key is not a well-formed encoded tuple
   */
  public static List<Object> decode(Key key) {
    byte[] b = key.toByteArray();
    List<Object> out = new ArrayList<>();
    int pos = 0;
    while (pos < b.length) {
      int tag = b[pos] & 0xFF;
      pos++;
      switch (tag) {
        case TAG_LONG -> {
          need(b, pos, 8);
          out.add(readLong(b, pos) ^ Long.MIN_VALUE);
          pos += 8;
        }
        case TAG_UUID -> {
          need(b, pos, 16);
          out.add(new UUID(readLong(b, pos), readLong(b, pos + 8)));
          pos += 16;
        }
        case TAG_TIMESTAMP -> {
          need(b, pos, 12);
          long seconds = readLong(b, pos) ^ Long.MIN_VALUE;
          int nanos = readInt(b, pos + 8);
          if (nanos < 0 || nanos > 999_999_999) {
            throw malformed(pos + 8, "nanos out of range " + nanos);
          }
          if (seconds < Instant.MIN.getEpochSecond() || seconds > Instant.MAX.getEpochSecond()) {
            throw malformed(pos, "seconds out of Instant's range " + seconds);
          }
          out.add(Instant.ofEpochSecond(seconds, nanos));
          pos += 12;
        }
        case TAG_BYTES, TAG_STRING -> {
          ByteArrayBuilder raw = new ByteArrayBuilder();
          pos = unescape(b, pos, raw);
          out.add(tag == TAG_BYTES ? Key.adopt(raw.toArray()) : utf8(raw.toArray(), pos));
        }
        default -> throw malformed(pos - 1, "unknown type tag " + tag);
      }
    }
    return out;
  }

  /**
   * The {@code ranges - 1} split points that cut the 8-byte big-endian keyspace into {@code ranges}
   * equal parts: point {@code i} is {@code floor(i * 2^64 / ranges)} as 8 bytes. For pre-splitting a
   * keyspace of uniformly distributed keys (hashes, random ids).
   */
  public static List<Key> uniformSplitPoints(int ranges) {
    if (ranges < 1) {
      throw new IllegalArgumentException("ranges must be >= 1, got " + ranges);
    }
    List<Key> out = new ArrayList<>(ranges - 1);
    BigInteger space = BigInteger.ONE.shiftLeft(64);
    BigInteger n = BigInteger.valueOf(ranges);
    for (int i = 1; i < ranges; i++) {
      out.add(bigEndian(space.multiply(BigInteger.valueOf(i)).divide(n).longValue()));
    }
    return out;
  }

  /** {@code value} as 8 big-endian bytes with no tag: unsigned order, e.g. for raw ids and hashes. */
  public static Key bigEndian(long value) {
    byte[] b = new byte[8];
    writeLong(b, 0, value);
    return Key.adopt(b);
  }

  /** Builds one encoded tuple; not thread-safe, single use per {@link #build()} result. */
  public static final class Builder {
    private final ByteArrayBuilder out = new ByteArrayBuilder();

    private Builder() {}

    public Builder addLong(long value) {
      out.add(TAG_LONG);
      out.addLong(value ^ Long.MIN_VALUE);
      return this;
    }

    /** Adds a string; fails on a lone surrogate, which UTF-8 cannot carry. */
    public Builder addString(String value) {
      ByteBuffer utf8;
      try {
        utf8 = StandardCharsets.UTF_8.newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .encode(CharBuffer.wrap(value));
      } catch (CharacterCodingException e) {
        throw new IllegalArgumentException("string is not well-formed UTF-16 (lone surrogate)", e);
      }
      byte[] bytes = new byte[utf8.remaining()];
      utf8.get(bytes);
      return escaped(TAG_STRING, bytes);
    }

    public Builder addBytes(byte[] value) {
      return escaped(TAG_BYTES, value);
    }

    public Builder addBytes(Key value) {
      return escaped(TAG_BYTES, value.toByteArray());
    }

    public Builder addUuid(UUID value) {
      out.add(TAG_UUID);
      out.addLong(value.getMostSignificantBits());
      out.addLong(value.getLeastSignificantBits());
      return this;
    }

    public Builder addTimestamp(Instant value) {
      out.add(TAG_TIMESTAMP);
      out.addLong(value.getEpochSecond() ^ Long.MIN_VALUE);
      int nanos = value.getNano();
      out.add(nanos >>> 24);
      out.add(nanos >>> 16);
      out.add(nanos >>> 8);
      out.add(nanos);
      return this;
    }

    /** Adds an element of any supported type (see {@link KeyCodec#encode(List)}). */
    public Builder add(Object element) {
      Objects.requireNonNull(element, "tuple element");
      if (element instanceof Long l) {
        return addLong(l);
      } else if (element instanceof Integer i) {
        return addLong(i);
      } else if (element instanceof String s) {
        return addString(s);
      } else if (element instanceof Key k) {
        return addBytes(k);
      } else if (element instanceof byte[] b) {
        return addBytes(b);
      } else if (element instanceof UUID u) {
        return addUuid(u);
      } else if (element instanceof Instant t) {
        return addTimestamp(t);
      }
      throw new IllegalArgumentException("unsupported tuple element type " + element.getClass().getName());
    }

    public Key build() {
      return Key.adopt(out.toArray());
    }

    private Builder escaped(int tag, byte[] value) {
      out.add(tag);
      for (byte x : value) {
        out.add(x);
        if (x == 0) {
          out.add(0xFF);
        }
      }
      out.add(0);
      return this;
    }
  }

  private static int unescape(byte[] b, int pos, ByteArrayBuilder raw) {
    while (true) {
      if (pos >= b.length) {
        throw malformed(pos, "missing terminator");
      }
      byte x = b[pos++];
      if (x != 0) {
        raw.add(x);
      } else if (pos < b.length && b[pos] == (byte) 0xFF) {
        raw.add(0);
        pos++;
      } else {
        return pos;
      }
    }
  }

  private static String utf8(byte[] raw, int pos) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(raw)).toString();
    } catch (CharacterCodingException e) {
      throw malformed(pos, "string element is not valid UTF-8");
    }
  }

  private static void need(byte[] b, int pos, int n) {
    if (b.length - pos < n) {
      throw malformed(pos, "truncated element: need " + n + " bytes, have " + (b.length - pos));
    }
  }

  private static IllegalArgumentException malformed(int offset, String why) {
    return new IllegalArgumentException("malformed tuple key at offset " + offset + ": " + why);
  }

  private static long readLong(byte[] b, int pos) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[pos + i] & 0xFFL);
    }
    return v;
  }

  private static int readInt(byte[] b, int pos) {
    return ((b[pos] & 0xFF) << 24) | ((b[pos + 1] & 0xFF) << 16) | ((b[pos + 2] & 0xFF) << 8) | (b[pos + 3] & 0xFF);
  }

  static void writeLong(byte[] b, int pos, long v) {
    for (int i = 7; i >= 0; i--) {
      b[pos + i] = (byte) v;
      v >>>= 8;
    }
  }

  /** A growable byte array, just enough for building keys without boxing. */
  private static final class ByteArrayBuilder {
    private byte[] buf = new byte[32];
    private int len;

    void add(int b) {
      if (len == buf.length) {
        buf = Arrays.copyOf(buf, len * 2);
      }
      buf[len++] = (byte) b;
    }

    void addLong(long v) {
      for (int shift = 56; shift >= 0; shift -= 8) {
        add((int) (v >>> shift));
      }
    }

    byte[] toArray() {
      return Arrays.copyOf(buf, len);
    }
  }
}
