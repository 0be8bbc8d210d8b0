package dev.rangekv.core.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class KeyCodecTest {

  private static final long[] EDGE_LONGS = {0, 1, -1, 2, -2, 255, 256, -256, Long.MIN_VALUE, Long.MAX_VALUE,
      Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, Integer.MIN_VALUE, Integer.MAX_VALUE};
  private static final String[] STRING_PIECES = {"", "a", "b", "\0", "\0\0", "ab", "é", "\u00ff", "\uE000",
      "\uFFFF", "\uD83D\uDE00", "z"};
  private static final long[] UUID_HALVES = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x7F00L << 48};
  private static final long[] SECONDS = {0, 1, -1, -62_135_596_800L, 253_402_300_799L, 1_700_000_000L};
  private static final int[] NANOS = {0, 1, 999_999_999, 500_000_000};

  @Test
  void byteOrder_equalsTupleOrder_andDecodeInvertsEncode() {
    Property.named("tuple order").cases(3000).sizes(0, 6).check(g -> {
      List<Object> a = randomTuple(g);
      List<Object> b = g.chance(0.3) ? mutate(g, a) : randomTuple(g);
      Key ka = KeyCodec.encode(a);
      Key kb = KeyCodec.encode(b);
      assertThat(KeyCodec.decode(ka)).isEqualTo(a);
      assertThat(KeyCodec.decode(kb)).isEqualTo(b);
      int expected = Integer.signum(compareTuples(a, b));
      assertThat(Integer.signum(ka.compareTo(kb))).as("%s vs %s", a, b).isEqualTo(expected);
    });
  }

  @Test
  void builder_matchesEncodeOfTheSameElements() {
    UUID u = new UUID(1, 2);
    Instant t = Instant.ofEpochSecond(-5, 7);
    Key built = KeyCodec.tuple().addLong(-3).addString("x\0y").addBytes(new byte[] {0, 1}).addUuid(u)
        .addTimestamp(t).build();
    assertThat(built).isEqualTo(KeyCodec.encode(List.of(-3L, "x\0y", Key.fromHex("0001"), u, t)));
    assertThat(KeyCodec.decode(built)).containsExactly(-3L, "x\0y", Key.fromHex("0001"), u, t);
  }

  @Test
  void longs_encodeAsTagPlusSignFlippedBigEndian() {
    assertThat(KeyCodec.tuple().addLong(0).build().toHex()).isEqualTo("038000000000000000");
    assertThat(KeyCodec.tuple().addLong(-1).build().toHex()).isEqualTo("037fffffffffffffff");
  }

  @Test
  void zeroBytesInStrings_areEscaped_soPrefixesSortFirst() {
    assertThat(KeyCodec.tuple().addString("a\0").build().toHex()).isEqualTo("026100ff00");
    Key shorter = KeyCodec.tuple().addString("a").addLong(Long.MAX_VALUE).build();
    Key longer = KeyCodec.tuple().addString("a\0").build();
    assertThat(shorter.compareTo(longer)).isNegative();
  }

  @Test
  void decode_rejectsMalformedKeys() {
    assertThatThrownBy(() -> KeyCodec.decode(Key.fromHex("09"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown type tag 9");
    assertThatThrownBy(() -> KeyCodec.decode(Key.fromHex("0300"))).hasMessageContaining("truncated");
    assertThatThrownBy(() -> KeyCodec.decode(Key.fromHex("0261"))).hasMessageContaining("missing terminator");
    assertThatThrownBy(() -> KeyCodec.decode(Key.fromHex("02ff00"))).hasMessageContaining("UTF-8");
  }

  @Test
  void loneSurrogates_areRejected() {
    assertThatThrownBy(() -> KeyCodec.tuple().addString("\uD800x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("surrogate");
  }

  @Test
  void uniformSplitPoints_cutTheEightByteSpaceEvenly() {
    assertThat(KeyCodec.uniformSplitPoints(1)).isEmpty();
    assertThat(KeyCodec.uniformSplitPoints(4)).extracting(Key::toHex)
        .containsExactly("4000000000000000", "8000000000000000", "c000000000000000");
    List<Key> points = KeyCodec.uniformSplitPoints(1000);
    assertThat(points).hasSize(999).isSorted().doesNotHaveDuplicates();
    assertThat(KeyCodec.bigEndian(-1L).toHex()).isEqualTo("ffffffffffffffff");
  }

  private static List<Object> randomTuple(Gen g) {
    int n = g.between(0, Math.max(1, g.size()));
    List<Object> t = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      t.add(randomElement(g));
    }
    return t;
  }

  /** A tuple close to {@code a}: a shared prefix, then a change, so that deep comparisons happen. */
  private static List<Object> mutate(Gen g, List<Object> a) {
    List<Object> b = new ArrayList<>(a.subList(0, g.between(0, a.size())));
    if (g.nextBoolean()) {
      b.add(randomElement(g));
    }
    return b;
  }

  private static Object randomElement(Gen g) {
    switch (g.nextInt(5)) {
      case 0:
        return g.chance(0.6) ? EDGE_LONGS[g.nextInt(EDGE_LONGS.length)] : g.nextLong();
      case 1: {
        StringBuilder sb = new StringBuilder();
        for (int i = g.between(0, 3); i > 0; i--) {
          sb.append(STRING_PIECES[g.nextInt(STRING_PIECES.length)]);
        }
        return sb.toString();
      }
      case 2: {
        byte[] b = g.smallAlphabetBytes(0, 4, 3);
        for (int i = 0; i < b.length; i++) {
          if (b[i] == 2) {
            b[i] = (byte) 0xFF;
          }
        }
        return Key.of(b);
      }
      case 3:
        return new UUID(UUID_HALVES[g.nextInt(UUID_HALVES.length)], UUID_HALVES[g.nextInt(UUID_HALVES.length)]);
      default:
        return Instant.ofEpochSecond(SECONDS[g.nextInt(SECONDS.length)], NANOS[g.nextInt(NANOS.length)]);
    }
  }

  /** The brute-force tuple order on Java values, written independently of the codec. */
  static int compareTuples(List<Object> a, List<Object> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = compareElements(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  private static int compareElements(Object x, Object y) {
    int c = Integer.compare(rank(x), rank(y));
    if (c != 0) {
      return c;
    }
    if (x instanceof Long l) {
      return Long.compare(l, (Long) y);
    } else if (x instanceof String s) {
      return Arrays.compare(s.codePoints().toArray(), ((String) y).codePoints().toArray());
    } else if (x instanceof Key k) {
      return Arrays.compareUnsigned(k.toByteArray(), ((Key) y).toByteArray());
    } else if (x instanceof UUID u) {
      UUID v = (UUID) y;
      Comparator<UUID> unsigned = Comparator.<UUID, Long>comparing(UUID::getMostSignificantBits, Long::compareUnsigned)
          .thenComparing(UUID::getLeastSignificantBits, Long::compareUnsigned);
      return unsigned.compare(u, v);
    }
    return ((Instant) x).compareTo((Instant) y);
  }

  private static int rank(Object x) {
    if (x instanceof Key) {
      return 0;
    } else if (x instanceof String) {
      return 1;
    } else if (x instanceof Long) {
      return 2;
    } else if (x instanceof UUID) {
      return 3;
    }
    return 4;
  }
}
