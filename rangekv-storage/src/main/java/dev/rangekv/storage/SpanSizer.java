package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rocksdb.FlushOptions;
import org.rocksdb.LevelMetaData;
import org.rocksdb.Range;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;
import org.rocksdb.SstFileMetaData;

/**
 * Approximate span sizes and split keys from RocksDB's size estimates, without scanning spans.
 *
 * <p>Sizes are logical: memtable bytes plus {@code GetApproximateSizes}' file bytes (block-granular
 * index lookups) scaled from compressed to raw by the column family's table properties; keys are the memtables' estimated count plus the file bytes times the entries-per-byte of the
 * SST files overlapping the span (from their table properties).
 *
 * <p>Split key: bisection between the span's first and last key, reading keys as numbers (the bytes
 * after the interval ends' common prefix, up to {@value #NUMERIC_WIDTH} of them) and snapping each probe
 * to an existing key, measuring the estimated bytes left of it, until the left part is within
 * {@value #TOLERANCE} of half. At most {@value #MAX_PROBES} size estimates and twice as many seeks.
 *
 * <p>Memtable estimates are coarse, so a span mostly in memtables is flushed before its split key is
 * sought; SST estimates follow the bytes at block granularity.
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
      long fileKeys = fileBytes == 0 ? 0 : estimateFileKeys(lo.toByteArray(), end.get(), fileBytes);
      long logicalFileBytes = fileBytes == 0 ? 0 : Math.round(fileBytes * rawBytesPerFileByte());
      return new SpanSize(Math.max(0, mem.size) + logicalFileBytes, Math.max(0, mem.count) + fileKeys);
    }
  }

  /**
   * Raw (uncompressed key and value) bytes per data-block byte over the data column family's SST files,
   * from their aggregated table properties: file estimates count compressed bytes, memtable estimates raw
   * ones, and a range's size must not shrink when its memtable is flushed. One ratio for the whole column
   * family, so a span much more (or less) compressible than the rest is over- (or under-) estimated.
   */
  private double rawBytesPerFileByte() {
    try {
      Map<String, String> p = rocks.db.getMapProperty(rocks.data, "rocksdb.aggregated-table-properties");
      double data = Double.parseDouble(p.getOrDefault("data_size", "0"));
      double raw = Double.parseDouble(p.getOrDefault("raw_key_size", "0"))
          + Double.parseDouble(p.getOrDefault("raw_value_size", "0"));
      return data <= 0 || raw <= 0 ? 1.0 : raw / data;
    } catch (RocksDBException | NumberFormatException e) {
      throw new StoreException("reading table properties failed", e);
    }
  }

  /**
   * File bytes times the entries-per-byte of the data column family's SST files overlapping the span.
   * (From file metadata; {@code getPropertiesOfTablesInRange} fails in rocksdbjni 10.10.1 with an
   * {@code IncompatibleClassChangeError} from its JNI side.)
   */
  private long estimateFileKeys(byte[] lo, byte[] end, long fileBytes) {
    double entries = 0;
    double bytes = 0;
    for (LevelMetaData level : rocks.db.getColumnFamilyMetaData(rocks.data).levels()) {
      for (SstFileMetaData f : level.files()) {
        boolean overlaps = Arrays.compareUnsigned(f.smallestKey(), end) < 0
            && Arrays.compareUnsigned(f.largestKey(), lo) >= 0;
        if (overlaps) {
          entries += Math.max(0, f.numEntries() - f.numDeletions());
          bytes += f.size();
        }
      }
    }
    return bytes == 0 ? 0 : Math.round(fileBytes * entries / bytes);
  }

  Optional<Key> findSplitKey(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      return Optional.empty();
    }
    flushIfMostlyInMemtables(lo, hi);
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
      byte[] second = it.key();
      it.seekToLast();
      byte[] last = it.key();
      byte[] split = bisect(it, lo.toByteArray(), first, second, last);
      c.check("find split key lo=" + lo);
      return Optional.of(Key.of(split));
    }
  }

  /**
   * Memtable estimates are sampled from the skiplist (tens of percent off) and assume one average entry
   * size, so when a quarter or more of the span's bytes are in memtables, flush the data column family
   * first: split keys are asked for rarely (when a range outgrew its size limit) and the memtable would
   * be flushed soon anyway.
   */
  private void flushIfMostlyInMemtables(Key lo, RangeEnd hi) {
    Optional<byte[]> end = SpanReader.finiteEnd(rocks.db, rocks.data, lo, hi);
    if (end.isEmpty()) {
      return;
    }
    try (Slice s = new Slice(lo.toByteArray()); Slice e = new Slice(end.get())) {
      Range r = new Range(s, e);
      long total = rocks.db.getApproximateSizes(rocks.data, List.of(r), ALL)[0];
      long inMemory = rocks.db.getApproximateMemTableStats(rocks.data, r).size;
      if (inMemory > 0 && inMemory * 4 >= total) {
        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
          rocks.db.flush(f, rocks.data);
        }
      }
    } catch (RocksDBException e) {
      throw new StoreException("flush before split key failed lo=" + lo + " hi=" + hi, e);
    }
  }

  /**
   * Bisection over existing keys: the interval {@code (a, b)} always has real keys at both ends, so their
   * common prefix grows as it narrows and the numeric midpoint looks at the bytes that still differ (a
   * dense cluster under a long prefix is resolved in a few steps). Each probe is snapped to an existing
   * key strictly inside the interval; it stops when none is left, the left share is within tolerance, or
   * after {@value #MAX_PROBES} probes. The answer is at least the span's second key.
   */
  private byte[] bisect(RocksIterator it, byte[] lo, byte[] first, byte[] second, byte[] last) {
    double half = bytesBetween(lo, Key.of(last).successor().toByteArray()) / 2.0;
    byte[] a = first;
    byte[] b = last;
    byte[] best = last;
    double bestError = Double.MAX_VALUE;
    for (int i = 0; i < MAX_PROBES; i++) {
      byte[] probe = existingKeyBetween(it, a, b);
      if (probe == null) {
        break;
      }
      long left = bytesBetween(lo, probe);
      double error = Math.abs(left - half);
      if (error < bestError) {
        bestError = error;
        best = probe;
      }
      if (error <= 2 * half * TOLERANCE) {
        break;
      }
      if (left < half) {
        a = probe;
      } else {
        b = probe;
      }
    }
    return Arrays.compareUnsigned(best, second) < 0 ? second : best;
  }

  /** An existing key strictly between {@code a} and {@code b}, near their numeric midpoint; null if none. */
  private static byte[] existingKeyBetween(RocksIterator it, byte[] a, byte[] b) {
    int p = Arrays.mismatch(a, b);
    if (p < 0) {
      return null;
    }
    int w = Math.min(NUMERIC_WIDTH, Math.max(a.length, b.length) - p);
    byte[] mid = key(a, p, number(a, p, w).add(number(b, p, w)).shiftRight(1), w);
    it.seek(mid);
    if (it.isValid() && Arrays.compareUnsigned(it.key(), a) > 0 && Arrays.compareUnsigned(it.key(), b) < 0) {
      return it.key();
    }
    it.seekForPrev(mid);
    if (it.isValid() && Arrays.compareUnsigned(it.key(), a) > 0 && Arrays.compareUnsigned(it.key(), b) < 0) {
      return it.key();
    }
    // The midpoint fell outside (a, b) at this width: fall back to a's successor, if inside.
    it.seek(a);
    if (it.isValid() && Arrays.equals(it.key(), a)) {
      it.next();
    }
    return it.isValid() && Arrays.compareUnsigned(it.key(), b) < 0 ? it.key() : null;
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
