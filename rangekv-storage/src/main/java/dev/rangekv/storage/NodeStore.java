package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;

/**
 * The store of one node: all of its replicas' user data and per-range local state in one RocksDB
 * instance. User keys are stored raw in the {@code data} column family, so a range's data is one
 * contiguous span; descriptors, applied indexes and per-range fields live in the {@code local} column
 * family (see {@link LocalStateCodec}).
 *
 * <p>Thread-safe. Every operation holds a shared lock that {@link #close} takes exclusively, so closing
 * waits for operations in flight and later calls fail with {@link StoreException} instead of touching
 * freed native memory.
 */
public final class NodeStore implements AutoCloseable {
  private final Path dir;
  private final RocksHandles rocks;
  private final ReentrantReadWriteLock guard = new ReentrantReadWriteLock();
  /** Range ids with a stored descriptor: lets {@code setApplied} be checked without a read per batch. */
  private final Set<Long> knownRanges = ConcurrentHashMap.newKeySet();
  private final Set<SnapshotView> openSnapshots = ConcurrentHashMap.newKeySet();
  private final SpanSizer sizer;
  private final SpanTransfer transfer;
  private boolean closed;

  private NodeStore(Path dir, RocksHandles rocks) {
    this.dir = dir;
    this.rocks = rocks;
    this.sizer = new SpanSizer(rocks);
    this.transfer = new SpanTransfer(rocks);
  }

  /** Opens (creating if missing) the store in {@code dataDir}. */
  public static NodeStore open(Path dataDir, StoreOptions options) throws StoreException {
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new StoreException("create store dir failed dir=" + dataDir, e);
    }
    NodeStore store = new NodeStore(dataDir, RocksHandles.open(dataDir, options));
    try {
      for (RangeLocalState s : LocalStates.all(store.rocks)) {
        store.knownRanges.add(s.rangeId());
      }
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /** Releases open snapshots and closes every native object. Idempotent. */
  @Override
  public void close() {
    guard.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (SnapshotView s : openSnapshots) {
        s.release();
      }
      openSnapshots.clear();
      rocks.close();
    } finally {
      guard.writeLock().unlock();
    }
  }

  public Path dataDir() {
    return dir;
  }

  // ---- reads of user data ----

  public Optional<byte[]> get(Key key) {
    return guarded(() -> SpanReader.get(rocks.db, rocks.data, null, key.toByteArray()));
  }

  /** Values in the order of {@code keys}. */
  public List<Optional<byte[]>> multiGet(List<Key> keys) {
    if (keys.isEmpty()) {
      return List.of(); // RocksJava asserts on an empty key list
    }
    return guarded(() -> {
      List<byte[]> raw = new ArrayList<>(keys.size());
      for (Key k : keys) {
        raw.add(k.toByteArray());
      }
      try {
        List<byte[]> values = rocks.db.multiGetAsList(Collections.nCopies(raw.size(), rocks.data), raw);
        List<Optional<byte[]>> out = new ArrayList<>(values.size());
        for (byte[] v : values) {
          out.add(Optional.ofNullable(v));
        }
        return out;
      } catch (RocksDBException e) {
        throw new StoreException("multiGet failed keys=" + keys.size(), e);
      }
    });
  }

  /**
   * Keys in {@code [lo, hi)}, ascending, or descending from just below {@code hi}; at most {@code limit}
   * entries ({@code limit <= 0}: none; {@code Integer.MAX_VALUE}: all). Never leaves the span.
   */
  public List<KeyValue> scan(Key lo, RangeEnd hi, int limit, boolean reverse) {
    return guarded(() -> SpanReader.scan(rocks.db, rocks.data, null, lo, hi, limit, reverse));
  }

  /** A consistent point-in-time view of the user data. Must be closed. */
  public StoreSnapshot snapshot() {
    return guarded(() -> {
      SnapshotView view = new SnapshotView(this, rocks);
      openSnapshots.add(view);
      return view;
    });
  }

  /** Releases a view unless the store already closed (which released every view). */
  void closeSnapshot(SnapshotView view) {
    guard.readLock().lock();
    try {
      if (!closed) {
        view.release();
        openSnapshots.remove(view);
      }
    } finally {
      guard.readLock().unlock();
    }
  }

  // ---- writes ----

  /** A new empty batch against this store. */
  public WriteBatchBuilder newBatch() {
    return guarded(() -> new WriteBatchBuilder(this, rocks));
  }

  /**
   * Applies the batch atomically; durable before returning when the store syncs writes or the batch
   * asked for {@link WriteBatchBuilder#sync}. The batch stays open (the caller closes it).
   */
  public void write(WriteBatchBuilder batch) throws StoreException {
    if (batch.store() != this) {
      throw new IllegalArgumentException("batch belongs to another store");
    }
    guarded(() -> {
      for (long id : batch.appliedSet()) {
        if (!knownRanges.contains(id) && !batch.statesPut().contains(id)) {
          throw new StoreException("setApplied without stored range state rangeId=" + id);
        }
      }
      WriteBatch wb = batch.batch();
      try {
        rocks.db.write(batch.isSync() ? rocks.syncWrites : rocks.asyncWrites, wb);
      } catch (RocksDBException e) {
        throw new StoreException("write batch failed ops=" + wb.count(), e);
      }
      knownRanges.addAll(batch.statesPut());
      return null;
    });
  }

  // ---- per-range local state ----

  public Optional<RangeLocalState> rangeState(long rangeId) {
    return guarded(() -> LocalStates.get(rocks, rangeId));
  }

  /** Every range this node holds a stored state for, by range id. */
  public List<RangeLocalState> allRangeStates() {
    return guarded(() -> LocalStates.all(rocks));
  }

  public Optional<byte[]> localGet(long rangeId, String field) {
    return guarded(() -> SpanReader.get(rocks.db, rocks.local, null, LocalStateCodec.fieldKey(rangeId, field)));
  }

  /** The range's fields whose name starts with {@code fieldPrefix}, by field name (UTF-8 byte order). */
  public List<Map.Entry<String, byte[]>> localScan(long rangeId, String fieldPrefix) {
    return guarded(() -> LocalStates.scanFields(rocks, rangeId, fieldPrefix));
  }

  /** The range's fields named in {@code [fromField, toField)} (UTF-8 byte order), by field name. */
  public List<Map.Entry<String, byte[]>> localScan(long rangeId, String fromField, String toField) {
    return guarded(() -> LocalStates.scanFields(rocks, rangeId, fromField, toField));
  }

  /** Deletes the range's descriptor, applied index and every field (durably). */
  public void deleteRangeLocalState(long rangeId) throws StoreException {
    guarded(() -> {
      LocalStates.delete(rocks, rangeId);
      knownRanges.remove(rangeId);
      return null;
    });
  }

  // ---- sizes and split keys ----

  /** Approximate bytes (files and memtables) and keys of {@code [lo, hi)}; no scan of the span. */
  public SpanSize approximateSize(Key lo, RangeEnd hi) {
    return guarded(() -> sizer.approximateSize(lo, hi));
  }

  /**
   * An existing key near the byte midpoint of {@code [lo, hi)}, strictly above the span's first key (so
   * both halves hold data); empty when the span has fewer than 2 keys. Costs a few seeks and size
   * estimates, not a scan.
   */
  public Optional<Key> findSplitKey(Key lo, RangeEnd hi) {
    return guarded(() -> sizer.findSplitKey(lo, hi));
  }

  // ---- span snapshots and deletion ----

  /** Exports {@code [lo, hi)} at one consistent point into SST files of about {@code maxFileBytes} each. */
  public SpanExport exportSpan(Key lo, RangeEnd hi, Path dir, long maxFileBytes) throws StoreException {
    return guarded(() -> transfer.export(lo, hi, dir, maxFileBytes));
  }

  /**
   * Exports {@code [lo, hi)} as seen by {@code at} (a snapshot of this store): lets a caller pair the
   * span with metadata it read at the same point (a moving replica's applied index).
   */
  public SpanExport exportSpan(StoreSnapshot at, Key lo, RangeEnd hi, Path dir, long maxFileBytes) throws StoreException {
    if (!(at instanceof SnapshotView view) || !openSnapshots.contains(view)) {
      throw new IllegalArgumentException("snapshot does not belong to this store or is closed");
    }
    return guarded(() -> view.withNative(s -> transfer.export(s, lo, hi, dir, maxFileBytes)));
  }

  /**
   * Replaces whatever {@code [lo, hi)} held with the files' contents, then writes {@code state} durably.
   * Every file must lie inside the span. The files are hard-linked (or copied) in; the caller may delete
   * them afterwards. Not atomic across a crash: the state is written last, so a crash before it leaves
   * the old state (or none) and the replica asks for a new snapshot.
   */
  public void ingestSpan(Key lo, RangeEnd hi, List<Path> sstFiles, RangeLocalState state) throws StoreException {
    guarded(() -> {
      transfer.ingest(lo, hi, sstFiles);
      try (WriteBatchBuilder b = new WriteBatchBuilder(this, rocks)) {
        b.putRangeState(state).sync();
        write(b);
      }
      return null;
    });
  }

  /**
   * Replaces whatever {@code [lo, hi)} held with the files' contents in one RocksDB ingest (a restore
   * with overwrite applying its entry: the caller records the applied index and keeps other writes to
   * the span out). A concurrent reader sees the old keys or the new ones, never an empty or mixed span.
   * Every file must lie inside the span; the files are moved in. {@code scratch} is a folder on the
   * store's file system for the file of deletes the ingest carries.
   */
  public void replaceSpan(Key lo, RangeEnd hi, List<Path> sstFiles, Path scratch) throws StoreException {
    guarded(() -> {
      transfer.replace(lo, hi, sstFiles, scratch);
      return null;
    });
  }

  /**
   * Ingests the files into {@code [lo, hi)}, which the caller has seen hold no key (under the range's
   * apply lock): no range tombstone first, so RocksDB need not flush its memtable before the ingest.
   */
  public void ingestIntoEmptySpan(Key lo, RangeEnd hi, List<Path> sstFiles) throws StoreException {
    guarded(() -> {
      transfer.ingest(lo, hi, sstFiles, false);
      return null;
    });
  }

  /**
   * Copies the user entries of SST file {@code in} into {@code out}, keys starting with {@code from}
   * rewritten to start with {@code to} instead, keeping only those inside {@code [lo, hi)}. Returns the
   * entries written; writes no file when none.
   */
  public long rewriteSst(Path in, Path out, Key lo, RangeEnd hi, Key from, Key to) throws StoreException {
    return guarded(() -> SstRewrite.copy(rocks, in, out, lo, hi, from, to));
  }

  /** Deletes the span's data (a range tombstone; compaction reclaims the space later). */
  public void deleteSpan(Key lo, RangeEnd hi) throws StoreException {
    guarded(() -> {
      transfer.deleteSpan(lo, hi);
      return null;
    });
  }

  /** Flushes memtables to SST files (tests, benchmarks, shutdown hooks). */
  public void flush() {
    guarded(() -> {
      try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        rocks.db.flush(f, List.of(rocks.data, rocks.local));
      } catch (RocksDBException e) {
        throw new StoreException("flush failed dir=" + dir, e);
      }
      return null;
    });
  }

  /** Compacts the span now, reclaiming space of deleted data (admin and tests; normally left to RocksDB). */
  public void compactSpan(Key lo, RangeEnd hi) {
    guarded(() -> {
      transfer.compact(lo, hi);
      return null;
    });
  }

  /** The engine's counters now (a few property reads; no I/O). */
  public StoreStats stats() {
    return guarded(() -> {
      try {
        return new StoreStats(
            rocks.db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables"),
            rocks.db.getAggregatedLongProperty("rocksdb.live-sst-files-size"),
            rocks.db.getAggregatedLongProperty("rocksdb.estimate-pending-compaction-bytes"),
            rocks.db.getLongProperty(rocks.data, "rocksdb.estimate-num-keys"),
            rocks.statistics.getTickerCount(TickerType.BLOCK_CACHE_HIT),
            rocks.statistics.getTickerCount(TickerType.BLOCK_CACHE_MISS));
      } catch (RocksDBException e) {
        throw new StoreException("read store properties failed dir=" + dir, e);
      }
    });
  }

  Optional<byte[]> finiteEnd(Key lo, RangeEnd hi) {
    return guarded(() -> SpanReader.finiteEnd(rocks.db, rocks.data, lo, hi));
  }

  <T> T guarded(Supplier<T> op) {
    guard.readLock().lock();
    try {
      if (closed) {
        throw new StoreException("store closed dir=" + dir);
      }
      return op.get();
    } finally {
      guard.readLock().unlock();
    }
  }
}
