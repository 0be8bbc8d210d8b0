package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Collects data changes and per-range local state into one RocksDB {@code WriteBatch}, which
 * {@link NodeStore#write} applies atomically: after a crash either all of it is present or none.
 * Put the applied index of a Raft entry in the same batch as the data the entry changed.
 *
 * <p>Not thread-safe: one builder, one thread. {@link NodeStore#write} does not consume it; close it
 * (try-with-resources) to free the native batch.
 */
public final class WriteBatchBuilder implements AutoCloseable {
  private final NodeStore store;
  private final RocksHandles rocks;
  private final WriteBatch batch = new WriteBatch();
  /** Ranges whose descriptor this batch writes. */
  private Set<Long> statesPut = Set.of();
  /** Ranges this batch sets the applied index of; each must have a stored (or batched) descriptor. */
  private Set<Long> appliedSet = Set.of();
  /** Largest key this batch puts: a +infinity range delete must cover it too. */
  private Key maxPut;
  private boolean sync;
  private boolean closed;

  WriteBatchBuilder(NodeStore store, RocksHandles rocks) {
    this.store = store;
    this.rocks = rocks;
  }

  public WriteBatchBuilder put(Key key, byte[] value) {
    if (maxPut == null || maxPut.compareTo(key) < 0) {
      maxPut = key;
    }
    return op(() -> batch.put(rocks.data, key.toByteArray(), value));
  }

  public WriteBatchBuilder delete(Key key) {
    return op(() -> batch.delete(rocks.data, key.toByteArray()));
  }

  /**
   * Deletes every key in {@code [lo, hi)}, including keys this batch put earlier. RocksDB range deletes
   * need a finite end: for {@code hi} at +infinity it is just above the larger of the store's last key now
   * (at build time) and this batch's largest put, so only keys that other threads write above both
   * before this batch is applied would survive.
   */
  public WriteBatchBuilder deleteRange(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      return this;
    }
    Optional<byte[]> end = store.finiteEnd(lo, hi);
    if (hi.isInfinite() && maxPut != null && maxPut.compareTo(lo) >= 0) {
      byte[] afterMaxPut = maxPut.successor().toByteArray();
      if (end.isEmpty() || Arrays.compareUnsigned(end.get(), afterMaxPut) < 0) {
        end = Optional.of(afterMaxPut);
      }
    }
    if (end.isEmpty()) {
      return this;
    }
    byte[] e = end.get();
    return op(() -> batch.deleteRange(rocks.data, lo.toByteArray(), e));
  }

  /** Writes the range's descriptor and applied term/index, replacing any stored ones. */
  public WriteBatchBuilder putRangeState(RangeLocalState state) {
    long id = state.rangeId();
    op(() -> {
      batch.put(rocks.local, LocalStateCodec.descriptorKey(id), LocalStateCodec.encodeDescriptor(state.descriptor()));
      batch.put(rocks.local, LocalStateCodec.appliedKey(id),
          LocalStateCodec.encodeApplied(state.appliedTerm(), state.appliedIndex()));
    });
    if (statesPut.isEmpty()) {
      statesPut = new HashSet<>(4);
    }
    statesPut.add(id);
    return this;
  }

  /**
   * Updates the applied term/index only, keeping the stored descriptor. {@link NodeStore#write} fails
   * when the range has no stored state and this batch does not put one.
   */
  public WriteBatchBuilder setApplied(long rangeId, long term, long index) {
    if (term < 0 || index < 0) {
      throw new IllegalArgumentException("negative applied term=" + term + " index=" + index);
    }
    op(() -> batch.put(rocks.local, LocalStateCodec.appliedKey(rangeId), LocalStateCodec.encodeApplied(term, index)));
    if (appliedSet.isEmpty()) {
      appliedSet = new HashSet<>(4);
    }
    appliedSet.add(rangeId);
    return this;
  }

  public WriteBatchBuilder localPut(long rangeId, String field, byte[] value) {
    return op(() -> batch.put(rocks.local, LocalStateCodec.fieldKey(rangeId, field), value));
  }

  public WriteBatchBuilder localDelete(long rangeId, String field) {
    return op(() -> batch.delete(rocks.local, LocalStateCodec.fieldKey(rangeId, field)));
  }

  /** Makes this batch durable (WAL fsynced before {@link NodeStore#write} returns), whatever the store's default. */
  public WriteBatchBuilder sync() {
    sync = true;
    return this;
  }

  /** Number of operations in the batch (data and local). */
  public int count() {
    ensureOpen();
    return batch.count();
  }

  /** Size of the batch's serialized form: roughly the bytes it adds to the WAL and memtables. */
  public long dataBytes() {
    ensureOpen();
    return batch.getDataSize();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      batch.close();
    }
  }

  boolean isSync() {
    return sync;
  }

  WriteBatch batch() {
    ensureOpen();
    return batch;
  }

  NodeStore store() {
    return store;
  }

  Set<Long> statesPut() {
    return statesPut;
  }

  Set<Long> appliedSet() {
    return appliedSet;
  }

  private interface BatchOp {
    void apply() throws RocksDBException;
  }

  /**
   * Runs a batch operation under the store's guard: operations name column family handles, which are
   * freed when the store closes, so after that they must fail instead of touching freed memory.
   */
  private WriteBatchBuilder op(BatchOp op) {
    ensureOpen();
    return store.guarded(() -> {
      try {
        op.apply();
      } catch (RocksDBException e) {
        throw new StoreException("write batch op failed", e);
      }
      return this;
    });
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("write batch already closed");
    }
  }
}
