package dev.rangekv.client.keydesign;

import dev.rangekv.client.KeyValue;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.scan.KWayMerge;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.keydesign.HashBucketKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A keyspace of {@code B} hash buckets against the monotonic-key hotspot: a key is stored as {@code
 * [bucket prefix byte] ++ key}, the bucket being a hash of a component the caller chooses (e.g. the
 * series or device id, or the key itself), mod B. New time-ordered keys then land in B places instead
 * of always the last range; a scan of a key window runs B ordered sub-scans (one per bucket) merged
 * with a k-way merge, so results still come in key order.
 *
 * <p>Choosing B: match the write parallelism you need (how many ranges should share the insert
 * stream), not the node count: nodes come and go, while B cannot change without rewriting every key.
 * Every window scan costs B sub-scans, so keep B as small as the write rate allows (seed 000: 32
 * buckets for 40,000 writes/s). Prefix bytes are spread over 0..255 as {@link HashBucketKeys} does, so
 * a keyspace pre-split with {@code KeyCodec.uniformSplitPoints(B)} holds one bucket per range.
 * Immutable and thread-safe.
 */
public final class BucketedKeyspace {
  private final HashBucketKeys buckets;

  /** {@code b} buckets, 1 to 256. */
  public BucketedKeyspace(int b) {
    this.buckets = new HashBucketKeys(b);
  }

  public int buckets() {
    return buckets.buckets();
  }

  /** The bucket of a component given as bytes: a 64-bit FNV-1a hash, then the core bucket mixer. */
  public int bucketOf(Key component) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < component.size(); i++) {
      h = (h ^ component.byteAt(i)) * 0x100000001b3L;
    }
    return buckets.bucket(h);
  }

  /** The bucket of a numeric component (the same mixer as {@link HashBucketKeys#bucket}). */
  public int bucketOf(long component) {
    return buckets.bucket(component);
  }

  /** The one-byte prefix of every stored key of {@code bucket}. */
  public Key prefix(int bucket) {
    return Key.of(new byte[] {(byte) buckets.prefixByte(bucket)});
  }

  /** The stored key of {@code key}, bucketed by {@code component}. */
  public Key key(Key component, Key key) {
    return prefix(bucketOf(component)).concat(key);
  }

  /** The stored key of {@code key}, bucketed by the key itself. */
  public Key key(Key key) {
    return key(key, key);
  }

  /** The user key of a stored key: the prefix byte removed. */
  public Key strip(Key stored) {
    if (stored.isEmpty()) {
      throw new IllegalArgumentException("not a bucketed key: empty");
    }
    return Key.of(stored.toByteArray(), 1, stored.size() - 1);
  }

  /**
   * The entries with user keys in {@code [lo, hi)} across all buckets, in user-key order (descending
   * when {@code options.reverse()}), with the prefix stripped. Each bucket is a lazy paged scan; at most
   * {@code options.limit()} entries are returned (0: no limit).
   */
  public Iterator<KeyValue> scan(RangeKvClient client, Key lo, RangeEnd hi, ScanOptions options) {
    if (options.after().isPresent()) {
      throw new IllegalArgumentException("a bucketed scan resumes by its user key window, not a stored-key cursor");
    }
    List<Iterator<KeyValue>> subScans = new ArrayList<>(buckets());
    for (int b = 0; b < buckets(); b++) {
      Key p = prefix(b);
      RangeEnd end = hi.isInfinite() ? p.prefixEnd() : RangeEnd.at(p.concat(hi.key()));
      Iterator<KeyValue> raw = client.scan(p.concat(lo), end, options);
      subScans.add(new Iterator<>() {
        @Override
        public boolean hasNext() {
          return raw.hasNext();
        }

        @Override
        public KeyValue next() {
          KeyValue kv = raw.next();
          return kv.withKey(strip(kv.key()));
        }
      });
    }
    Comparator<KeyValue> byKey = Comparator.comparing(KeyValue::key);
    Iterator<KeyValue> merged = new KWayMerge<>(subScans, options.reverse() ? byKey.reversed() : byKey);
    return options.limit() == 0 ? merged : limited(merged, options.limit());
  }

  private static <T> Iterator<T> limited(Iterator<T> it, long limit) {
    return new Iterator<>() {
      long left = limit;

      @Override
      public boolean hasNext() {
        return left > 0 && it.hasNext();
      }

      @Override
      public T next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        left--;
        return it.next();
      }
    };
  }
}
