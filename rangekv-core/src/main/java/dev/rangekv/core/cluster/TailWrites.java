package dev.rangekv.core.cluster;

import dev.rangekv.core.key.Key;
import java.util.Objects;
import java.util.Optional;

/**
 * Append signal of one range for one interval, cheap for a node to count: of the {@code writes} it
 * applied, how many had a key above every key the range held before (an append at its end), and the
 * highest key written.
 *
 * @param writes writes applied in the interval
 * @param appends writes whose key was above the range's previous maximum key; at most {@code writes}
 * @param maxWrittenKey the highest key written in the interval; empty when nothing was written
 */
public record TailWrites(long writes, long appends, Optional<Key> maxWrittenKey) {
  /** No writes observed. */
  public static final TailWrites NONE = new TailWrites(0, 0, Optional.empty());

  public TailWrites {
    Objects.requireNonNull(maxWrittenKey, "maxWrittenKey");
    if (writes < 0 || appends < 0 || appends > writes) {
      throw new IllegalArgumentException("need 0 <= appends <= writes, got appends=" + appends + " writes=" + writes);
    }
    if (writes > 0 && maxWrittenKey.isEmpty()) {
      throw new IllegalArgumentException("writes=" + writes + " but no maxWrittenKey");
    }
  }

  /** Share of writes that were appends; 0 without writes. */
  public double appendShare() {
    return writes == 0 ? 0 : (double) appends / writes;
  }
}
