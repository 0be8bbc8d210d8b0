package dev.rangekv.core.split;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.key.Key;
import java.util.Objects;

/**
 * The split policy's answer for one range in one tick; every variant says why.
 *
 * <p>{@link Split} is to be executed, {@link NeedsMidpoint} asks the store for a byte-midpoint key
 * first ({@link SizeSplitPolicy#resolve}), {@link Declined} records a wanted split refused (worth an
 * event), {@link NoSplit} means no split was wanted.
 */
public sealed interface SplitDecision {
  long rangeId();

  Explanation why();

  /** Split range {@code rangeId} (at {@code generation}) at {@code splitKey}, strictly inside it. */
  record Split(long rangeId, long generation, Key splitKey, SplitCause cause, Explanation why)
      implements SplitDecision {
    public Split {
      Objects.requireNonNull(splitKey, "splitKey");
      Objects.requireNonNull(cause, "cause");
      Objects.requireNonNull(why, "why");
    }
  }

  /** Above max-bytes: the caller fetches the store's midpoint key and calls {@link SizeSplitPolicy#resolve}. */
  record NeedsMidpoint(long rangeId, long generation, Explanation why) implements SplitDecision {
    public NeedsMidpoint {
      Objects.requireNonNull(why, "why");
    }
  }

  /** A split was wanted but refused, e.g. one hot key dominates or too few keys were sampled. */
  record Declined(long rangeId, long generation, SplitCause cause, Explanation why) implements SplitDecision {
    public Declined {
      Objects.requireNonNull(cause, "cause");
      Objects.requireNonNull(why, "why");
    }
  }

  /** No split wanted this tick (small and cool, or load not yet sustained). */
  record NoSplit(long rangeId, Explanation why) implements SplitDecision {
    public NoSplit {
      Objects.requireNonNull(why, "why");
    }
  }
}
