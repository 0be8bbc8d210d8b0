package dev.rangekv.cli.format;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyText;
import dev.rangekv.core.key.RangeEnd;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Keys and values on the command line: UTF-8 text by default, raw bytes as hex with {@code --hex}.
 * Keys for people are rendered by {@link KeyText} (tuple keys as {@code /events/2026-12-01T08:40:11Z/7},
 * others raw as text or escaped); values as printable text or {@code 0x...}; with hex on, both always hex.
 * Immutable.
 *
 * @param hex keys and values are hex on input and output
 */
public record KeyFormat(boolean hex) {

  /** A key or value argument as bytes; throws {@link IllegalArgumentException} naming a bad hex string. */
  public byte[] parse(String text) {
    if (!hex) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    String digits = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
    try {
      return HexFormat.of().parseHex(digits);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad hex '" + text + "': " + e.getMessage(), e);
    }
  }

  public Key parseKey(String text) {
    return Key.of(parse(text));
  }

  /** A key for people (tables, live lines). */
  public String render(Key key) {
    return renderBytes(key.toByteArray(), true);
  }

  /** A value for people: text when it is printable UTF-8, else hex. */
  public String renderValue(byte[] value) {
    return renderBytes(value, false);
  }

  /** A key for scripts: hex with {@code --hex}, else its UTF-8 text (lossy for binary keys; see keyHex). */
  public String plain(byte[] bytes) {
    return hex ? HexFormat.of().formatHex(bytes) : new String(bytes, StandardCharsets.UTF_8);
  }

  /** A range end: {@code +inf} or the key. */
  public String render(RangeEnd end) {
    return end.isInfinite() ? "+inf" : render(end.key());
  }

  /** {@code [start, end)} for people. */
  public String span(Key start, RangeEnd end) {
    return hex ? "[" + render(start) + ", " + render(end) + ")" : KeyText.span(start, end);
  }

  private String renderBytes(byte[] bytes, boolean key) {
    if (hex) {
      return "0x" + HexFormat.of().formatHex(bytes);
    }
    if (key) {
      return KeyText.render(Key.of(bytes));
    }
    return KeyText.printableText(bytes).orElseGet(() -> "0x" + HexFormat.of().formatHex(bytes));
  }
}
