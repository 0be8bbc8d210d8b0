package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rocksdb.Range;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;
import org.rocksdb.TableProperties;

/**
 * Approximate span sizes and split keys from RocksDB's size estimates, without scanning spans.
 *
 * <p>Sizes: {@code GetApproximateSizes} over files and memtables (block-granular index lookups) for
 * bytes; keys are the memtables' estimated count plus the file bytes times the entries-per-byte of the
 * SST files overlapping the span (from their table properties).
 *
 * <p>Split key: bisection over the key space between the span's first and last key, read as numbers
 * (the bytes after their common prefix, up to {@value #NUMERIC_WIDTH} of them), measuring the estimated
 * bytes left of each probe, until the left part is within {@value #TOLERANCE} of half or the interval
 * cannot shrink; then the first existing key at or above the best probe. At most {@value #MAX_PROBES}
 * estimates.
 */
final class SpanSizer {
  static final double TOLERANCE = 0.02;
  static final int MAX_PROBES = 48;
  static final int NUMERIC_WIDTH = 16;
  private static final SizeApproximationFlag[] ALL = {
      SizeApproximationFlag.INCLUDE_MEMTABLES, SizeApproximationFlag.INCLUDE_FILES};

  private final RocksHandles rocks;

  SpanSizer(RocksHandles rocks) {
    this.rocks = rocks;
  }

  SpanSize approximateSize(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      return new SpanSize(0, 0);
    }
    Optional<byte[]> end = SpanReader.finiteEnd(rocks.db, rocks.data, lo, hi);
    if (end.isEmpty()) {
      return new SpanSize(0, 0);
    }
    try (Slice s = new Slice(lo.toByteArray()); Slice e = new Slice(end.get())) {
      Range r = new Range(s, e);
      long total = rocks.db.getApproximateSizes(rocks.data, List.of(r), ALL)[0];
      RocksDB.CountAndSize mem = rocks.db.getApproximateMemTableStats(rocks.data, r);
      long fileBytes = Math.max(0, total - mem.size);
      long fileKeys = fileBytes == 0 ? 0 : estimateFileKeys(r, fileBytes);
      return new SpanSize(Math.max(0, total), Math.max(0, mem.count) + fileKeys);
    }
  }

  private long estimateFileKeys(Range r, long fileBytes) {
    Map<String, TableProperties> props;
    try {
      props = rocks.db.getPropertiesOfTablesInRange(rocks.data, List.of(r));
    } catch (RocksDBException e) {
      throw new StoreException("read table properties failed", e);
    }
    double entries = 0;
    double bytes = 0;
    for (TableProperties t : props.values()) {
      entries += Math.max(0, t.getNumEntries() - t.getNumDeletions() - t.getNumRangeDeletions());
      bytes += t.getDataSize() + t.getIndexSize() + t.getFilterSize();
    }
    return bytes == 0 ? 0 : Math.round(fileBytes * entries / bytes);
  }

  Optional<Key> findSplitKey(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      return Optional.empty();
    }
    try (SpanReader.Cursor c = SpanReader.cursor(rocks.db, rocks.data, null, lo, hi)) {
      RocksIterator it = c.it;
      it.seekToFirst();
      if (!it.isValid()) {
        c.check("find split key lo=" + lo);
        return Optional.empty();
      }
      byte[] first = it.key();
      it.next();
      if (!it.isValid()) {
        c.check("find split key lo=" + lo);
        return Optional.empty();
      }
      Key second = Key.of(it.key());
      it.seekToLast();
      byte[] last = it.key();
      byte[] probe = bisect(lo, first, last);
      it.seek(probe);
      Key split = it.isValid() ? Key.of(it.key()) : Key.of(last);
      c.check("find split key lo=" + lo);
      // Strictly above the first key, so [lo, split) and [split, hi) both hold data.
      return Optional.of(split.compareTo(second) < 0 ? second : split);
    }
  }

  private byte[] bisect(Key lo, byte[] first, byte[] last) {
    int p = Arrays.mismatch(first, last);
    if (p < 0) {
      return last; // first == last cannot happen with two keys; be safe anyway
    }
    int w = Math.min(NUMERIC_WIDTH, Math.max(first.length, last.length) - p);
    BigInteger a = number(first, p, w);
    BigInteger b = number(last, p, w);
    byte[] loBytes = lo.toByteArray();
    double half = bytesBetween(loBytes, Key.of(last).successor().toByteArray()) / 2.0;
    byte[] best = last;
    double bestError = Double.MAX_VALUE;
    for (int i = 0; i < MAX_PROBES; i++) {
      BigInteger mid = a.add(b).shiftRight(1);
      if (mid.equals(a)) {
        break;
      }
      byte[] probe = key(first, p, mid, w);
      long left = bytesBetween(loBytes, probe);
      double error = Math.abs(left - half);
      if (error < bestError) {
        bestError = error;
        best = probe;
      }
      if (error <= 2 * half * TOLERANCE) {
        break;
      }
      if (left < half) {
        a = mid;
      } else {
        b = mid;
      }
    }
    return best;
  }

  private long bytesBetween(byte[] lo, byte[] hi) {
    try (Slice s = new Slice(lo); Slice e = new Slice(hi)) {
      return rocks.db.getApproximateSizes(rocks.data, List.of(new Range(s, e)), ALL)[0];
    }
  }

  /** The {@code w} bytes of {@code k} after {@code p}, zero-padded, as an unsigned number. */
  private static BigInteger number(byte[] k, int p, int w) {
    byte[] digits = new byte[w];
    System.arraycopy(k, p, digits, 0, Math.max(0, Math.min(w, k.length - p)));
    return new BigInteger(1, digits);
  }

  /** The common prefix {@code prefix[0, p)} followed by {@code n} as {@code w} big-endian bytes. */
  private static byte[] key(byte[] prefix, int p, BigInteger n, int w) {
    byte[] out = Arrays.copyOf(prefix, p + w);
    byte[] digits = n.toByteArray(); // may carry a leading sign byte, or be shorter than w
    int copy = Math.min(w, digits.length);
    System.arraycopy(digits, digits.length - copy, out, p + w - copy, copy);
    Arrays.fill(out, p, p + w - copy, (byte) 0);
    return out;
  }
}
