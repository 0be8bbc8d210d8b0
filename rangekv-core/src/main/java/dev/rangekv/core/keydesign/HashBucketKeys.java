package dev.rangekv.core.keydesign;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;

/**
 * Numeric ids behind a one-byte hash-bucket prefix: {@code [prefix(bucket(id))] ++ bigEndian(id)}.
 *
 * <p>Consecutive ids (auto-increment, time-ordered) would all sort next to each other and land in one
 * range; the prefix scatters them over {@code buckets} key spans. The cost: a scan in id order fans
 * out to one sub-scan per bucket, merged in order. Bucket {@code b} is written as byte {@code
 * floor(b * 256 / buckets)}, which spreads the buckets evenly over the first byte, so a keyspace
 * pre-split with {@link KeyCodec#uniformSplitPoints(int) uniformSplitPoints(buckets)} holds one
 * bucket per range. Immutable and thread-safe.
 *
 * @param buckets number of buckets, 1 to 256; choose it for the write parallelism needed, since it
 *     cannot change without rewriting every key
 */
public record HashBucketKeys(int buckets) {

  public HashBucketKeys {
    if (buckets < 1 || buckets > 256) {
      throw new IllegalArgumentException("buckets must be in [1, 256], got " + buckets);
    }
  }

  /** The bucket of {@code id}, uniform in {@code [0, buckets)} even for consecutive ids. */
  public int bucket(long id) {
    // Fibonacci hashing: the multiply spreads consecutive ids; the high bits are the well-mixed ones.
    long mixed = (id * 0x9E3779B97F4A7C15L) >>> 32;
    return (int) ((mixed * buckets) >>> 32);
  }

  /** The first byte of every key in {@code bucket}. */
  public int prefixByte(int bucket) {
    return bucket * 256 / buckets;
  }

  /** The key of {@code id}: its bucket's prefix byte, then the id as 8 big-endian bytes. */
  public Key key(long id) {
    return Key.of(new byte[] {(byte) prefixByte(bucket(id))}).concat(KeyCodec.bigEndian(id));
  }
}
