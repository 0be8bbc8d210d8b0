package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * Bounded reads over one column family, optionally at a snapshot. Every iterator gets RocksDB's
 * {@code iterate_lower_bound}/{@code iterate_upper_bound}, so it can never surface a key outside the span
 * it was opened on, and RocksDB stops early instead of skipping tombstones beyond the span.
 */
final class SpanReader {
  private SpanReader() {}

  /** A bounded iterator and the native objects it needs; closes them all, the iterator first. */
  static final class Cursor implements AutoCloseable {
    final RocksIterator it;
    private final ReadOptions options;
    private final Slice lower;
    private final Slice upper;

    /** {@code lo == null}: no lower bound, for forward-only cursors that start with {@code seek(lo)}. */
    Cursor(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, byte[] lo, byte[] hi) {
      this.options = new ReadOptions();
      this.lower = lo == null ? null : new Slice(lo);
      this.upper = hi == null ? null : new Slice(hi);
      if (lower != null) {
        options.setIterateLowerBound(lower);
      }
      if (upper != null) {
        options.setIterateUpperBound(upper);
      }
      if (snapshot != null) {
        options.setSnapshot(snapshot);
      }
      this.it = db.newIterator(cf, options);
    }

    /** Throws when the iterator stopped on an error rather than at the end of the span. */
    void check(String what) {
      try {
        it.status();
      } catch (RocksDBException e) {
        throw new StoreException(what + " failed", e);
      }
    }

    @Override
    public void close() {
      it.close();
      options.close();
      if (lower != null) {
        lower.close();
      }
      if (upper != null) {
        upper.close();
      }
    }
  }

  static Cursor cursor(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, Key lo, RangeEnd hi) {
    return new Cursor(db, cf, snapshot, lo.toByteArray(), hi.isInfinite() ? null : hi.key().toByteArray());
  }

  static List<KeyValue> scan(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, Key lo, RangeEnd hi, int limit,
                             boolean reverse) {
    if (limit <= 0 || !hi.isAbove(lo)) {
      return List.of();
    }
    List<KeyValue> out = new ArrayList<>(Math.min(limit, 64));
    byte[] loBytes = lo.toByteArray();
    byte[] hiBytes = hi.isInfinite() ? null : hi.key().toByteArray();
    // A forward scan starts with seek(lo) and only moves up, so it needs no lower bound (one native
    // object less per scan); the upper bound is what keeps it inside the span.
    try (Cursor c = new Cursor(db, cf, snapshot, reverse ? loBytes : null, hiBytes)) {
      RocksIterator it = c.it;
      if (reverse) {
        it.seekToLast();
      } else {
        it.seek(loBytes);
      }
      while (it.isValid() && out.size() < limit) {
        out.add(new KeyValue(Key.of(it.key()), it.value()));
        if (reverse) {
          it.prev();
        } else {
          it.next();
        }
      }
      c.check("scan lo=" + lo + " hi=" + hi);
    }
    return out;
  }

  static Optional<byte[]> get(RocksDB db, ColumnFamilyHandle cf, ReadOptions options, byte[] key) {
    try {
      return Optional.ofNullable(options == null ? db.get(cf, key) : db.get(cf, options, key));
    } catch (RocksDBException e) {
      throw new StoreException("get failed", e);
    }
  }

  /** The last key at or above {@code lo}, if any: the finite stand-in for a span ending at +infinity. */
  static Optional<Key> lastKeyFrom(RocksDB db, ColumnFamilyHandle cf, Snapshot snapshot, Key lo) {
    try (Cursor c = cursor(db, cf, snapshot, lo, RangeEnd.INFINITY)) {
      c.it.seekToLast();
      Optional<Key> last = c.it.isValid() ? Optional.of(Key.of(c.it.key())) : Optional.empty();
      c.check("find last key from=" + lo);
      return last;
    }
  }

  /**
   * A finite exclusive end for RocksDB calls that need one ({@code deleteRange}, size ranges): {@code hi}
   * itself, or for +infinity the successor of the current last key; empty when a +infinity span holds no
   * key.
   */
  static Optional<byte[]> finiteEnd(RocksDB db, ColumnFamilyHandle cf, Key lo, RangeEnd hi) {
    if (!hi.isInfinite()) {
      return Optional.of(hi.key().toByteArray());
    }
    return lastKeyFrom(db, cf, null, lo).map(k -> k.successor().toByteArray());
  }
}
