package dev.rangekv.cli.format;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Keys and values on the command line: UTF-8 text by default, raw bytes as hex with {@code --hex}.
 * Rendering for people shows printable text as is, tuple keys (from {@link KeyCodec}) as
 * {@code (a, b, c)} (a split key cut inside a tuple as its whole elements plus the escaped rest, e.g.
 * {@code ("t", 17)+"\x02o1"}), other keys escaped ({@code "\x00ab"}) and values as {@code 0x...};
 * with hex on, always hex. Immutable.
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
    return "[" + (start.isEmpty() ? "\"\"" : render(start)) + ", " + render(end) + ")";
  }

  private String renderBytes(byte[] bytes, boolean tryTuple) {
    if (hex) {
      return "0x" + HexFormat.of().formatHex(bytes);
    }
    String text = printableUtf8(bytes);
    if (text != null) {
      return text;
    }
    if (tryTuple) {
      String tuple = tuple(bytes);
      if (tuple != null) {
        return tuple;
      }
      // a split key may cut a tuple inside an element: show the whole elements, then the rest
      for (int len = bytes.length - 1; len > 0; len--) {
        String head = tuple(Arrays.copyOf(bytes, len));
        if (head != null) {
          return head + "+" + Key.of(Arrays.copyOfRange(bytes, len, bytes.length)).toFullString();
        }
      }
      return Key.of(bytes).toFullString();
    }
    return "0x" + HexFormat.of().formatHex(bytes);
  }

  private static String printableUtf8(byte[] bytes) {
    String s;
    try {
      s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null; // not text: the caller shows it another way
    }
    return s.codePoints().allMatch(c -> c >= 0x20 && c != 0x7f && !Character.isISOControl(c)) ? s : null;
  }

  private static String tuple(byte[] bytes) {
    List<Object> elements;
    try {
      elements = KeyCodec.decode(Key.of(bytes));
    } catch (IllegalArgumentException e) {
      return null; // not an encoded tuple: the caller falls back to hex
    }
    if (elements.isEmpty()) {
      return null;
    }
    return elements.stream().map(KeyFormat::element).collect(Collectors.joining(", ", "(", ")"));
  }

  private static String element(Object e) {
    if (e instanceof String s) {
      return "\"" + s + "\"";
    }
    if (e instanceof Key k) {
      return "0x" + k.toHex();
    }
    return String.valueOf(e);
  }
}
