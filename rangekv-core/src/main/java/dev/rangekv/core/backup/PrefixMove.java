package dev.rangekv.core.backup;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;

/**
 * Moves keys from under one prefix to under another (a restore {@code --into-prefix}): {@code from + x}
 * becomes {@code to + x}. Order-preserving on the keys under {@code from}, so a span under {@code from}
 * maps to a span under {@code to} with the same keys in the same order. The identity when both are equal.
 *
 * @param from the prefix the backed-up keys have
 * @param to the prefix they get
 */
public record PrefixMove(Key from, Key to) {
  /** No move. */
  public static final PrefixMove NONE = new PrefixMove(Key.EMPTY, Key.EMPTY);

  public boolean isIdentity() {
    return from.equals(to);
  }

  /** {@code k} under {@code to}; {@code k} must start with {@code from}. */
  public Key apply(Key k) {
    if (!k.startsWith(from)) {
      throw new IllegalArgumentException("key " + k + " is not under prefix " + from);
    }
    return isIdentity() ? k : to.concat(Key.of(k.toByteArray(), from.size(), k.size() - from.size()));
  }

  /** The span {@code s} maps to; {@code s} must lie under {@code from}. */
  public KeySpan apply(KeySpan s) {
    if (isIdentity()) {
      return s;
    }
    KeySpan under = KeySpan.prefix(from);
    if (!under.covers(s)) {
      throw new IllegalArgumentException("span " + s + " is not under prefix " + from);
    }
    RangeEnd end = s.end().equals(under.end()) ? KeySpan.prefixEnd(to) : RangeEnd.at(apply(s.end().key()));
    return new KeySpan(apply(s.start()), end);
  }
}
