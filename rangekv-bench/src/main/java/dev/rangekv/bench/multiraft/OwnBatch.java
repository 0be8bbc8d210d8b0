package dev.rangekv.bench.multiraft;

import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A group's own write batch on the per-group runtime: each flush is one synced write (RocksDB may still
 * merge concurrent synced writers of one node into one WAL sync; the fsync count is measured).
 */
final class OwnBatch implements WriteTarget {
  private final RocksDB db;
  private final WriteOptions sync;
  private final WriteBatch batch = new WriteBatch();

  OwnBatch(RocksDB db, WriteOptions sync) {
    this.db = db;
    this.sync = sync;
  }

  @Override
  public WriteBatch batch() {
    return batch;
  }

  @Override
  public void wrote(GroupStore store) {
    // durable only on flush
  }

  @Override
  public void flush(GroupStore store) throws RocksDBException {
    if (batch.count() > 0) {
      db.write(sync, batch);
      batch.clear();
    }
    store.markDurable();
  }
}
