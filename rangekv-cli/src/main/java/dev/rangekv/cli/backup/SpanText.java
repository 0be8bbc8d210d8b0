package dev.rangekv.cli.backup;

import dev.rangekv.cli.format.KeyFormat;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.Optional;

/** Turns {@link SpanOptions} into a {@link KeySpan}; bad input is an {@link IllegalArgumentException}. */
final class SpanText {
  private SpanText() {}

  /** The span the options name; empty when they name none. */
  static Optional<KeySpan> parse(SpanOptions o, KeyFormat keys) {
    if (o == null || (o.prefix == null && o.start == null && o.end == null)) {
      return Optional.empty();
    }
    if (o.prefix != null) {
      if (o.start != null || o.end != null) {
        throw new IllegalArgumentException("--span and --start/--end exclude each other");
      }
      return Optional.of(KeySpan.prefix(Key.of(keys.parse(o.prefix))));
    }
    Key start = o.start == null ? Key.EMPTY : Key.of(keys.parse(o.start));
    RangeEnd end = o.end == null ? RangeEnd.INFINITY : RangeEnd.at(Key.of(keys.parse(o.end)));
    if (!end.isAbove(start)) {
      throw new IllegalArgumentException("--end must be above --start");
    }
    return Optional.of(new KeySpan(start, end));
  }

  /** The span for people, keys as {@code keys} prints them. */
  static String format(KeySpan s, KeyFormat keys) {
    return keys.span(s.start(), s.end());
  }
}
