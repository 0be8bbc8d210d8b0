package dev.rangekv.core.merge;

import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import java.util.List;
import java.util.Objects;

/**
 * The merge policy's answer for one pair of neighbours that are both under min-bytes; every variant
 * says why. Ranges are named left and right in key order; the left id survives a merge.
 */
public sealed interface MergeDecision {
  long leftRangeId();

  long rightRangeId();

  Explanation why();

  /** Merge now: the two are co-located. Generations guard against a map that changed meanwhile. */
  record Merge(long leftRangeId, long leftGeneration, long rightRangeId, long rightGeneration, Explanation why)
      implements MergeDecision {
    public Merge {
      Objects.requireNonNull(why, "why");
    }
  }

  /** Mergeable but on different replica sets: execute these moves first; the merge follows a later tick. */
  record CoLocateFirst(long leftRangeId, long rightRangeId, List<Move> moves, Explanation why)
      implements MergeDecision {
    public CoLocateFirst {
      moves = List.copyOf(moves);
      Objects.requireNonNull(why, "why");
    }
  }

  /** Both small, but a rule forbids merging them now (load, cooldown, a move in flight, ...). */
  record Declined(long leftRangeId, long rightRangeId, Explanation why) implements MergeDecision {
    public Declined {
      Objects.requireNonNull(why, "why");
    }
  }
}
