package dev.rangekv.core.rangemap;

/**
 * The range-id allocator the meta range keeps in its replicated state: the next id it will grant.
 * Ids are small increasing integers, as CockroachDB's {@code r1, r2, ...}: the first range of a
 * cluster is {@link #ROOT}, every later range (a split's right half) gets an id granted here, in
 * blocks, each above every id granted before and every id the meta range has seen in use ({@link
 * #seen}: a bootstrapped map, or ranges of a cluster older than the allocator). Ids never repeat; ids
 * granted but not used (a split that lost to another at the same generation, a node that asked and
 * crashed) are gaps. Pure and immutable: the meta state machine applies {@link #grant} to the log's
 * allocation commands, so every replica grants the same blocks.
 *
 * <p>The meta range itself has no range id (its Raft group id is a fixed UUID apart from every
 * range's); 0 means "no range" on the wire, so ids start at 1.
 *
 * @param next the first id of the next block granted (at least {@link #FIRST_GRANTED})
 */
public record RangeIds(long next) {
  /** The id of a cluster's first range, {@code ["", +inf)}, installed at bootstrap. */
  public static final long ROOT = 1;
  /** The first id the allocator grants. */
  public static final long FIRST_GRANTED = ROOT + 1;
  /** The most ids one grant may hold: a bound on what a malformed request can waste. */
  public static final int MAX_BLOCK = 10_000;

  public RangeIds {
    if (next < FIRST_GRANTED) {
      throw new IllegalArgumentException("next range id must be >= " + FIRST_GRANTED + ", got " + next);
    }
  }

  /** The allocator of a new cluster: nothing granted yet. */
  public static RangeIds initial() {
    return new RangeIds(FIRST_GRANTED);
  }

  /** A granted block and the allocator after it. */
  public record Grant(RangeIdBlock block, RangeIds after) {}

  /**
   * The allocator after seeing {@code rangeId} in use: later grants lie above it. This same allocator
   * when it does so already (ids at or below 0 are "no range" and change nothing).
   */
  public RangeIds seen(long rangeId) {
    if (rangeId < next) {
      return this;
    }
    // the highest possible id leaves nothing to grant: grant() then refuses, never repeats it
    return new RangeIds(rangeId == Long.MAX_VALUE ? rangeId : rangeId + 1);
  }

  /**
   * Grants the {@code count} ids from {@link #next}.
   *
   * @throws IllegalArgumentException when {@code count} is not in {@code [1, MAX_BLOCK]}, or no
   *     {@code count} ids are left below {@link Long#MAX_VALUE}
   */
  public Grant grant(int count) {
    if (count < 1 || count > MAX_BLOCK) {
      throw new IllegalArgumentException("a grant holds 1 to " + MAX_BLOCK + " range ids, asked " + count);
    }
    RangeIdBlock block = new RangeIdBlock(next, count);
    return new Grant(block, new RangeIds(block.last() + 1));
  }
}
