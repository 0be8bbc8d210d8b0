package dev.rangekv.server.split;

/**
 * Child range ids, unique cluster-wide without a meta range: the proposer derives the id from the
 * parent's (range id, generation), a pair that names exactly one split ever (every split bumps the
 * generation, and a retry at the same generation proposes the same id). The pair is mixed into 63 bits
 * with a 64-bit finaliser, so two distinct splits collide with probability about 2^-63 per pair; the
 * root range is id 1 and ids are always positive. A later meta range may allocate ids instead.
 */
public final class ChildRangeIds {
  /** The id of the first range of a cluster. */
  public static final long ROOT = 1;

  private ChildRangeIds() {}

  public static long childOf(long parentRangeId, long parentGeneration) {
    long h = mix(parentRangeId * 0x9E3779B97F4A7C15L + mix(parentGeneration + 0x632BE59BD9B4E019L));
    long id = h & Long.MAX_VALUE;
    return id <= ROOT ? id + 2 : id;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
