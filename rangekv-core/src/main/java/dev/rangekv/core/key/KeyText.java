package dev.rangekv.core.key;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The one way keys are shown to people: a tuple key made by {@link KeyCodec} reads as a path, the way
 * CockroachDB pretty-prints keys ({@code /events_by_time/2026-12-01T08:40:11.123Z/o3832879/7}); any
 * other key is shown raw, as before (printable UTF-8 text as is, else {@link Key#toFullString()}).
 *
 * <p>Elements: a long in decimal; a timestamp as {@link java.time.Instant#toString()}; a UUID in its RFC 4122
 * form; bytes as {@code 0x} and hex; a string bare when it starts with a letter or {@code _}, has no
 * space, control, {@code /}, {@code +}, {@code "} or {@code \} and does not look like a UUID, else in
 * double quotes with {@code \"}, {@code \\} and {@code \}{@code u{hex}} escapes. So every element
 * reads back to one value ({@link #parseTuple}). A key that a split cut inside an element (a split key
 * is any byte string) shows its whole elements, then {@code +} and the rest raw:
 * {@code /events_by_time+"\x05\x80"}. A one-byte prefix before a tuple (a {@code BucketedKeyspace}
 * bucket) shows as {@code #} and two hex digits: {@code #4a/2026-12-01T08:40:11.123Z/o3832879/7}. Raw
 * text that starts with {@code /}, {@code #} or {@code "} is quoted so it cannot pass for a tuple.
 * Stateless and thread-safe.
 */
public final class KeyText {
  private static final HexFormat HEX = HexFormat.of();

  private KeyText() {}

  /** The key for people: a tuple path when the key is (or starts with) an encoded tuple, else raw. */
  public static String render(Key key) {
    byte[] bytes = key.toByteArray();
    // whole tuples first, then a bucket byte before a whole tuple, then cut tuples (whole elements + raw rest)
    for (int from = 0; from <= 1 && from < bytes.length; from++) {
      Optional<String> whole = tuple(bytes, from, bytes.length);
      if (whole.isPresent()) {
        return head(bytes, from) + whole.get();
      }
    }
    for (int from = 0; from <= 1 && from < bytes.length; from++) {
      for (int end = bytes.length - 1; end > from; end--) {
        Optional<String> elements = tuple(bytes, from, end);
        if (elements.isPresent()) {
          return head(bytes, from) + elements.get() + "+" + Key.of(bytes, end, bytes.length - end).toFullString();
        }
      }
    }
    return raw(key);
  }

  private static String head(byte[] bytes, int from) {
    return from == 0 ? "" : "#" + HEX.toHexDigits(bytes[0]);
  }

  /** A range end: {@code +inf} or its key. */
  public static String render(RangeEnd end) {
    return end.isInfinite() ? "+inf" : render(end.key());
  }

  /** {@code [start, end)}; the empty start key shows as {@code ""}. */
  public static String span(Key start, RangeEnd end) {
    return "[" + (start.isEmpty() ? "\"\"" : render(start)) + ", " + render(end) + ")";
  }

  /** A key that is not a tuple: printable UTF-8 text as is (unless it could pass for a path), else escaped. */
  public static String raw(Key key) {
    return printableText(key.toByteArray()).filter(t -> !t.isEmpty() && "/\"#".indexOf(t.charAt(0)) < 0)
        .orElseGet(key::toFullString);
  }

  /**
   * The encoded tuple a path rendering stands for, or empty when {@code text} is not a whole-tuple path
   * (raw renderings and cut keys are not read back).
   */
  public static Optional<Key> parseTuple(String text) {
    return new PathReader(text).read();
  }

  private static Optional<String> tuple(byte[] bytes, int from, int end) {
    if (bytes[from] < KeyCodec.TAG_BYTES || bytes[from] > KeyCodec.TAG_TIMESTAMP) {
      return Optional.empty(); // cheap early out: no tuple starts here
    }
    List<Object> elements;
    try {
      elements = KeyCodec.decode(Key.of(bytes, from, end - from));
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // not an encoded tuple: the caller shows it another way
    }
    if (elements.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder sb = new StringBuilder();
    for (Object e : elements) {
      sb.append('/').append(element(e));
    }
    return Optional.of(sb.toString());
  }

  static String element(Object e) {
    if (e instanceof String s) {
      return bare(s) ? s : quoted(s);
    }
    if (e instanceof Key k) {
      return "0x" + HEX.formatHex(k.toByteArray());
    }
    return e.toString(); // Long, UUID, Instant: their standard forms, each read back by PathReader
  }

  static boolean bare(String s) {
    if (s.isEmpty() || !(Character.isLetter(s.codePointAt(0)) || s.charAt(0) == '_') || PathReader.looksLikeUuid(s)) {
      return false;
    }
    return s.codePoints().allMatch(c -> visible(c) && c != '/' && c != '+' && c != '"' && c != '\\');
  }

  private static String quoted(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    s.codePoints().forEach(c -> {
      if (c == '"' || c == '\\') {
        sb.append('\\').appendCodePoint(c);
      } else if (c == ' ' || visible(c)) {
        sb.appendCodePoint(c);
      } else {
        sb.append("\\u{").append(Integer.toHexString(c)).append('}');
      }
    });
    return sb.append('"').toString();
  }

  /** Printable and not white space: letters, marks, digits, punctuation, symbols. */
  private static boolean visible(int c) {
    switch (Character.getType(c)) {
      case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
          Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR:
        return false;
      default:
        return true;
    }
  }

  /** {@code bytes} as text when they are UTF-8 without control characters (e.g. a value to print). */
  public static Optional<String> printableText(byte[] bytes) {
    String s;
    try {
      s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return Optional.empty(); // not text: shown escaped
    }
    return s.codePoints().allMatch(c -> c >= 0x20 && !Character.isISOControl(c)) ? Optional.of(s) : Optional.empty();
  }
}
