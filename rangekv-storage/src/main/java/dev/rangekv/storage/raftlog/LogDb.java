package dev.rangekv.storage.raftlog;

import dev.rangekv.storage.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiPredicate;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;

/**
 * The node's Raft log database: a RocksDB of its own, written in {@link LogBatch}es, each with one
 * synced write (one fsync of its WAL) when asked. Apart from the data store so that a cycle's fsync
 * covers only log appends, term and vote, never a range's applied data. Thread-safe (RocksDB is).
 */
public final class LogDb implements AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private final Options options;
  private final Statistics statistics;
  private final RocksDB db;
  private final WriteOptions synced = new WriteOptions().setSync(true);
  private final WriteOptions unsynced = new WriteOptions();

  private LogDb(Options options, Statistics statistics, RocksDB db) {
    this.options = options;
    this.statistics = statistics;
    this.db = db;
  }

  /** Opens (creating when missing) the log database in {@code dir}. */
  public static LogDb open(Path dir) {
    try {
      Files.createDirectories(dir);
      Statistics stats = new Statistics();
      Options options = new Options().setCreateIfMissing(true).setStatistics(stats);
      return new LogDb(options, stats, RocksDB.open(options, dir.toString()));
    } catch (RocksDBException | java.io.IOException e) {
      throw new StoreException("opening the Raft log database " + dir + " failed", e);
    }
  }

  /** A new, empty batch (the caller closes it). */
  public LogBatch newBatch() {
    return new LogBatch();
  }

  /** Writes {@code batch} atomically; with {@code sync}, durable (WAL fsynced) before this returns. */
  public void write(LogBatch batch, boolean sync) {
    try {
      db.write(sync ? synced : unsynced, batch.batch);
    } catch (RocksDBException e) {
      throw new StoreException("Raft log batch write failed ops=" + batch.count(), e);
    }
  }

  /** The value of {@code key}; null when absent. */
  public byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw new StoreException("Raft log read failed", e);
    }
  }

  /**
   * Visits the keys in {@code [lo, hi)} in order until {@code visit} returns false.
   */
  public void scan(byte[] lo, byte[] hi, BiPredicate<byte[], byte[]> visit) {
    try (RocksIterator it = db.newIterator()) {
      for (it.seek(lo); it.isValid(); it.next()) {
        byte[] k = it.key();
        if (java.util.Arrays.compareUnsigned(k, hi) >= 0 || !visit.test(k, it.value())) {
          return;
        }
      }
    }
  }

  /** WAL fsyncs since open (for the engine's figures). */
  public long walSyncs() {
    return statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
  }

  @Override
  public void close() {
    db.close();
    synced.close();
    unsynced.close();
    options.close();
    statistics.close();
  }
}
