package dev.rangekv.server.stats;

import dev.rangekv.core.key.Key;
import java.util.Objects;
import java.util.Optional;

/**
 * A range's greatest key when a load interval starts: the reference a write must exceed to count as an
 * append. Unknown (not looked up, or the range is not held here) counts no appends; an empty range
 * counts every put as an append.
 *
 * @param known whether the lookup succeeded
 * @param maxKey the greatest key the range held; empty when it held none (or when unknown)
 */
public record TailBaseline(boolean known, Optional<Key> maxKey) {
  /** Not looked up, or the range is not held on this node. */
  public static final TailBaseline UNKNOWN = new TailBaseline(false, Optional.empty());
  /** The range held no key. */
  public static final TailBaseline EMPTY = new TailBaseline(true, Optional.empty());

  public TailBaseline {
    Objects.requireNonNull(maxKey, "maxKey");
    if (!known && maxKey.isPresent()) {
      throw new IllegalArgumentException("an unknown baseline has no key");
    }
  }

  public static TailBaseline of(Key maxKey) {
    return new TailBaseline(true, Optional.of(maxKey));
  }

  /** True when a put of {@code key} lands above every key the range held at the baseline. */
  public boolean isAppend(Key key) {
    return known && (maxKey.isEmpty() || key.compareTo(maxKey.get()) > 0);
  }

  /** Where a recorder gets baselines from (the store, or a model in tests). Thread-safe. */
  @FunctionalInterface
  public interface Lookup {
    /** The range's greatest key now; {@link #UNKNOWN} when this node cannot tell. */
    TailBaseline baseline(long rangeId);
  }
}
