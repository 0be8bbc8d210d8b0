package dev.rangekv.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Property;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KeyTest {

  @Test
  void order_isUnsignedLexicographic() {
    assertThat(Key.fromHex("7f").compareTo(Key.fromHex("80"))).isNegative();
    assertThat(Key.fromHex("ff").compareTo(Key.fromHex("ff00"))).isNegative();
    assertThat(Key.EMPTY.compareTo(Key.fromHex("00"))).isNegative();
  }

  @Test
  void compareTo_agreesWithArraysCompareUnsigned() {
    Property.named("key order").cases(2000).sizes(0, 20).check(g -> {
      byte[] a = g.smallAlphabetBytes(0, g.size(), 3 + g.nextInt(254));
      byte[] b = g.smallAlphabetBytes(0, g.size(), 3 + g.nextInt(254));
      int expected = Integer.signum(Arrays.compareUnsigned(a, b));
      assertThat(Integer.signum(Key.of(a).compareTo(Key.of(b)))).isEqualTo(expected);
      assertThat(Key.of(a).equals(Key.of(b))).isEqualTo(expected == 0);
    });
  }

  @Test
  void prefixEnd_boundsEveryKeyWithThePrefix() {
    assertThat(Key.utf8("ab").prefixEnd()).isEqualTo(RangeEnd.at(Key.utf8("ac")));
    assertThat(Key.fromHex("61ff").prefixEnd()).isEqualTo(RangeEnd.at(Key.fromHex("62")));
    assertThat(Key.fromHex("ffff").prefixEnd()).isEqualTo(RangeEnd.INFINITY);
    assertThat(Key.EMPTY.prefixEnd()).isEqualTo(RangeEnd.INFINITY);
    Property.named("prefixEnd").cases(1000).sizes(1, 6).check(g -> {
      Key p = Key.of(g.smallAlphabetBytes(1, g.size(), 256));
      Key k = Key.of(g.smallAlphabetBytes(0, g.size() + 2, 256));
      RangeEnd end = p.prefixEnd();
      if (k.startsWith(p)) {
        assertThat(end.isAbove(k)).isTrue();
      } else if (p.compareTo(k) < 0) {
        assertThat(end.isAbove(k)).isFalse();
      }
    });
  }

  @Test
  void successor_isSmallestGreaterKey() {
    Key k = Key.utf8("a");
    assertThat(k.successor()).isEqualTo(Key.fromHex("6100"));
    assertThat(k.compareTo(k.successor())).isNegative();
  }

  @Test
  void toString_ofALongKey_showsItsFirst64BytesAndItsLength() {
    Key k = Key.utf8("a".repeat(8192));
    assertThat(k.toString()).isEqualTo("\"" + "a".repeat(64) + "...\"(8192 bytes)");
    assertThat(Key.utf8("b".repeat(64)).toString()).isEqualTo("\"" + "b".repeat(64) + "\"");
  }

  @Test
  void toString_rendersPrintableAsciiAndHexOtherwise() {
    assertThat(Key.utf8("user:1").toString()).isEqualTo("\"user:1\"");
    assertThat(Key.fromHex("00ff41").toString()).isEqualTo("\"\\x00\\xffA\"");
  }

  @Test
  void bytesAreCopied_soKeysStayImmutable() {
    byte[] raw = {1, 2, 3};
    Key k = Key.of(raw);
    raw[0] = 9;
    k.toByteArray()[1] = 9;
    assertThat(k.toHex()).isEqualTo("010203");
  }

  @Test
  void prefix8At_readsEightBytesFromAnOffset_zeroPadded() {
    Key k = Key.fromHex("0102030405060708090a");
    assertThat(k.prefix8At(0)).isEqualTo(k.prefix8());
    assertThat(k.prefix8At(2)).isEqualTo(0x030405060708090aL);
    assertThat(k.prefix8At(9)).isEqualTo(0x0a00000000000000L);
    assertThat(k.prefix8At(10)).isZero();
    assertThat(k.commonPrefixLength(Key.fromHex("010203ff"))).isEqualTo(3);
    assertThat(k.commonPrefixLength(k)).isEqualTo(10);
    assertThat(Key.EMPTY.commonPrefixLength(k)).isZero();
  }
}
