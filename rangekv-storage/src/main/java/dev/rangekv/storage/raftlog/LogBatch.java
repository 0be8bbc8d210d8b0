package dev.rangekv.storage.raftlog;

import dev.rangekv.storage.StoreException;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/** Puts and range deletes for one {@link LogDb#write}; reusable after {@link #clear}. Not thread-safe. */
public final class LogBatch implements AutoCloseable {
  final WriteBatch batch = new WriteBatch();

  LogBatch() {}

  public LogBatch put(byte[] key, byte[] value) {
    try {
      batch.put(key, value);
    } catch (RocksDBException e) {
      throw new StoreException("Raft log batch put failed", e);
    }
    return this;
  }

  public LogBatch delete(byte[] key) {
    try {
      batch.delete(key);
    } catch (RocksDBException e) {
      throw new StoreException("Raft log batch delete failed", e);
    }
    return this;
  }

  /** Deletes the keys in {@code [lo, hi)}. */
  public LogBatch deleteRange(byte[] lo, byte[] hi) {
    try {
      batch.deleteRange(lo, hi);
    } catch (RocksDBException e) {
      throw new StoreException("Raft log batch range delete failed", e);
    }
    return this;
  }

  public int count() {
    return batch.count();
  }

  public void clear() {
    batch.clear();
  }

  @Override
  public void close() {
    batch.close();
  }
}
