package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.rocksdb.ReadOptions;
import org.rocksdb.Snapshot;

/**
 * A {@link StoreSnapshot} over one RocksDB snapshot. Reads go through the store's guard; the store
 * releases views still open when it closes, after which reads fail with {@link StoreException}.
 */
final class SnapshotView implements StoreSnapshot {
  private final NodeStore store;
  private final RocksHandles rocks;
  private final Snapshot snapshot;
  private final ReadOptions pointReads;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private boolean released;

  SnapshotView(NodeStore store, RocksHandles rocks) {
    this.store = store;
    this.rocks = rocks;
    this.snapshot = rocks.db.getSnapshot();
    this.pointReads = new ReadOptions().setSnapshot(snapshot);
  }

  @Override
  public Optional<byte[]> get(Key key) {
    return store.guarded(() -> live(() -> SpanReader.get(rocks.db, rocks.data, pointReads, key.toByteArray())));
  }

  @Override
  public List<KeyValue> scan(Key lo, RangeEnd hi, int limit, boolean reverse) {
    return store.guarded(() -> live(() -> SpanReader.scan(rocks.db, rocks.data, snapshot, lo, hi, limit, reverse)));
  }

  @Override
  public void close() {
    store.closeSnapshot(this);
  }

  /** Frees the native snapshot once reads through it finished; callers hold the store's guard. */
  void release() {
    lock.writeLock().lock();
    try {
      if (!released) {
        released = true;
        pointReads.close();
        rocks.db.releaseSnapshot(snapshot);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Runs a read unless the view was released; a release waits for reads in flight. */
  private <T> T live(Supplier<T> read) {
    lock.readLock().lock();
    try {
      if (released) {
        throw new StoreException("snapshot already closed");
      }
      return read.get();
    } finally {
      lock.readLock().unlock();
    }
  }
}
