package dev.rangekv.cli.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import org.junit.jupiter.api.Test;

class KeyFormatTest {
  private final KeyFormat text = new KeyFormat(false);
  private final KeyFormat hex = new KeyFormat(true);

  @Test
  void textKeys_areUtf8_andHexKeysAreRawBytes() {
    assertThat(text.parseKey("user42")).isEqualTo(Key.utf8("user42"));
    assertThat(hex.parseKey("00ff10").toByteArray()).containsExactly(0x00, 0xff, 0x10);
    assertThat(hex.parseKey("0x0a").toByteArray()).containsExactly(0x0a);
  }

  @Test
  void badHex_namesTheInput() {
    assertThatThrownBy(() -> hex.parse("abc")).hasMessageStartingWith("bad hex 'abc'");
    assertThatThrownBy(() -> hex.parse("zz")).hasMessageStartingWith("bad hex 'zz'");
  }

  @Test
  void render_showsPrintableText_tuples_andHexOtherwise() {
    assertThat(text.render(Key.utf8("user42"))).isEqualTo("user42");
    Key tuple = KeyCodec.tuple().addLong(7).addString("o1").build();
    assertThat(text.render(tuple)).isEqualTo("/7/o1");
    assertThat(text.render(Key.of(new byte[] {(byte) 0xfe, 0x00}))).isEqualTo("\"\\xfe\\x00\"");
    assertThat(text.renderValue(new byte[] {(byte) 0xfe, 0x00})).isEqualTo("0xfe00");
    assertThat(hex.render(Key.utf8("a"))).isEqualTo("0x61");
  }

  @Test
  void render_ofATupleCutInsideAnElement_showsTheWholeElementsThenTheRest() {
    Key whole = KeyCodec.tuple().addString("t").addLong(17).addString("o1").build();
    Key cut = whole.prefix(whole.size() - 2);
    assertThat(text.render(cut)).isEqualTo("/t/17+\"\\x02o\"");
  }

  @Test
  void span_showsTheEmptyStartAndInfiniteEnd() {
    assertThat(text.span(Key.EMPTY, RangeEnd.INFINITY)).isEqualTo("[\"\", +inf)");
    assertThat(text.span(Key.utf8("a"), RangeEnd.at(Key.utf8("m")))).isEqualTo("[a, m)");
  }

  @Test
  void plain_isHexUnderHex_elseText() {
    assertThat(hex.plain(new byte[] {1, 2})).isEqualTo("0102");
    assertThat(text.plain("é".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEqualTo("é");
  }
}
