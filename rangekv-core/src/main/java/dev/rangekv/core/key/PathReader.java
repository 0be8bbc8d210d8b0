package dev.rangekv.core.key;

import java.time.DateTimeException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Reads a tuple path written by {@link KeyText} back into its encoded key: the inverse of the tuple
 * rendering, so that a rendering names exactly one key. Single use; not thread-safe.
 */
final class PathReader {
  private static final Pattern LONG = Pattern.compile("-?[0-9]+");
  private static final Pattern UUID_FORM =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final String text;
  private final KeyCodec.Builder out = KeyCodec.tuple();
  private int pos;

  PathReader(String text) {
    this.text = text;
  }

  static boolean looksLikeUuid(String s) {
    return UUID_FORM.matcher(s).matches();
  }

  Optional<Key> read() {
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      Key bucket = Key.EMPTY;
      if (text.startsWith("#") && text.length() >= 4 && text.charAt(3) == '/') {
        bucket = Key.of(new byte[] {(byte) HexFormat.fromHexDigits(text, 1, 3)});
        pos = 3;
      }
      if (pos == text.length()) {
        return Optional.empty();
      }
      while (pos < text.length()) {
        if (text.charAt(pos) != '/') {
          return Optional.empty();
        }
        pos++;
        if (pos < text.length() && text.charAt(pos) == '"') {
          out.addString(quoted());
        } else {
          int end = tokenEnd();
          if (!element(text.substring(pos, end))) {
            return Optional.empty();
          }
          pos = end;
        }
      }
      return Optional.of(bucket.concat(out.build()));
    } catch (IllegalArgumentException | DateTimeException e) {
      return Optional.empty(); // not a path this renderer writes
    }
  }

  /** An unquoted token runs to the next {@code /}; a {@code +} may only open it (a timestamp's year sign). */
  private int tokenEnd() {
    int end = pos;
    while (end < text.length() && text.charAt(end) != '/' && (text.charAt(end) != '+' || end == pos)) {
      end++;
    }
    if (end < text.length() && text.charAt(end) == '+') {
      throw new IllegalArgumentException("a cut key (raw rest after +) names no whole tuple");
    }
    return end;
  }

  private boolean element(String token) {
    if (token.startsWith("0x")) {
      out.addBytes(HexFormat.of().parseHex(token.substring(2)));
    } else if (LONG.matcher(token).matches()) {
      out.addLong(Long.parseLong(token));
    } else if (looksLikeUuid(token)) {
      out.addUuid(UUID.fromString(token));
    } else if (!token.isEmpty() && (Character.isDigit(token.charAt(0)) || token.charAt(0) == '+'
        || token.charAt(0) == '-')) {
      Instant t = Instant.parse(token);
      if (!t.toString().equals(token)) {
        return false; // another spelling of the instant: not what the renderer writes
      }
      out.addTimestamp(t);
    } else if (KeyText.bare(token)) {
      out.addString(token);
    } else {
      return false;
    }
    return true;
  }

  private String quoted() {
    pos++; // the opening quote
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw new IllegalArgumentException("unterminated quoted string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        if (pos < text.length() && text.charAt(pos) != '/') {
          throw new IllegalArgumentException("text after a quoted string");
        }
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
      } else if (text.startsWith("u{", pos)) {
        int close = text.indexOf('}', pos);
        if (close < 0) {
          throw new IllegalArgumentException("unterminated \\u{ escape");
        }
        sb.appendCodePoint(Integer.parseInt(text.substring(pos + 2, close), 16));
        pos = close + 1;
      } else if (pos < text.length()) {
        sb.append(text.charAt(pos++));
      } else {
        throw new IllegalArgumentException("dangling backslash");
      }
    }
  }
}
