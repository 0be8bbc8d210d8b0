package dev.rangekv.meta.state;

/**
 * A meta command that cannot be applied (no operation, a map that does not tile, an empty range, a
 * node without id). {@link MetaState#apply} throws it before changing anything, so every replica
 * skips the same entry.
 */
public final class MalformedMetaCommandException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MalformedMetaCommandException(String message) {
    super(message);
  }
}
