package dev.rangekv.core.rangemap;

/**
 * A block of range ids granted by the meta range: {@code [first, first + count)}. Never granted twice;
 * ids of a block nobody used are a gap, never handed out again.
 *
 * @param first the first id of the block (above {@link RangeIds#ROOT})
 * @param count how many ids, at least one
 */
public record RangeIdBlock(long first, int count) {
  public RangeIdBlock {
    if (first <= RangeIds.ROOT) {
      throw new IllegalArgumentException("a granted range id must be above the root's id " + RangeIds.ROOT
          + ", got " + first);
    }
    if (count < 1) {
      throw new IllegalArgumentException("a block holds at least one id, got " + count);
    }
    if (first > Long.MAX_VALUE - count) {
      throw new IllegalArgumentException("block [" + first + ", +" + count + ") overflows a long");
    }
  }

  /** The last id of the block. */
  public long last() {
    return first + count - 1;
  }

  /** True when {@code id} lies in the block. */
  public boolean contains(long id) {
    return id >= first && id <= last();
  }
}
