package dev.rangekv.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.EnvOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Every native object of one open store, created in {@link #open} and closed in reverse order of
 * creation by {@link #close}, so no {@code RocksObject} leaks. Column families: {@code data} (user keys,
 * raw bytes, so a range is one contiguous span) and {@code local} (per-range state); {@code default} is
 * required by RocksDB and stays empty.
 */
final class RocksHandles implements AutoCloseable {
  static final String DATA_CF = "data";
  static final String LOCAL_CF = "local";

  static {
    RocksDB.loadLibrary();
  }

  final RocksDB db;
  final ColumnFamilyHandle data;
  final ColumnFamilyHandle local;
  final WriteOptions asyncWrites;
  final WriteOptions syncWrites;
  /** Options matching the data column family, for SST files written outside the DB and read back. */
  final Options sstOptions;
  final EnvOptions envOptions;
  /** Engine counters (no detailed timers) that the node's metrics read: block cache hits and misses. */
  final Statistics statistics;
  private final Deque<AutoCloseable> owned;

  private RocksHandles(RocksDB db, ColumnFamilyHandle data, ColumnFamilyHandle local, WriteOptions asyncWrites,
                       WriteOptions syncWrites, Options sstOptions, EnvOptions envOptions, Statistics statistics,
                       Deque<AutoCloseable> owned) {
    this.db = db;
    this.data = data;
    this.local = local;
    this.asyncWrites = asyncWrites;
    this.syncWrites = syncWrites;
    this.sstOptions = sstOptions;
    this.envOptions = envOptions;
    this.statistics = statistics;
    this.owned = owned;
  }

  static RocksHandles open(Path dir, StoreOptions o) {
    Deque<AutoCloseable> owned = new ArrayDeque<>();
    try {
      LRUCache cache = o.blockCacheBytes() > 0 ? own(owned, new LRUCache(o.blockCacheBytes())) : null;
      BloomFilter bloom = o.bloomFilters() ? own(owned, new BloomFilter(10, false)) : null;
      CompressionType compression = o.lz4Compression() ? CompressionType.LZ4_COMPRESSION
          : CompressionType.NO_COMPRESSION;

      Statistics statistics = own(owned, new Statistics());
      statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
      DBOptions dbOptions = own(owned, new DBOptions()
          .setStatistics(statistics)
          .setCreateIfMissing(true)
          .setCreateMissingColumnFamilies(true)
          .setMaxBackgroundJobs(2)
          .setMaxOpenFiles(1024)
          // The local CF gets a few bytes per batch; bounding the WAL forces it to flush so old WAL
          // files can go instead of waiting for its memtable to fill.
          .setMaxTotalWalSize(4 * o.writeBufferBytes())
          .setBytesPerSync(1 << 20)
          .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
          .setMaxLogFileSize(4 << 20)
          .setKeepLogFileNum(2));
      ColumnFamilyOptions dataOptions = own(owned, columnFamily(o.writeBufferBytes(), 3, compression, cache, bloom));
      ColumnFamilyOptions localOptions = own(owned,
          columnFamily(Math.max(64 << 10, o.writeBufferBytes() / 4), 2, compression, cache, bloom));
      ColumnFamilyOptions defaultOptions = own(owned, new ColumnFamilyOptions().setWriteBufferSize(64 << 10));
      Options sstOptions = own(owned, new Options()
          .setCompressionType(compression)
          .setTableFormatConfig(table(cache, bloom)));
      EnvOptions envOptions = own(owned, new EnvOptions());
      WriteOptions asyncWrites = own(owned, new WriteOptions().setSync(o.syncWrites()));
      WriteOptions syncWrites = own(owned, new WriteOptions().setSync(true));

      List<ColumnFamilyDescriptor> descriptors = List.of(
          new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, defaultOptions),
          new ColumnFamilyDescriptor(DATA_CF.getBytes(StandardCharsets.UTF_8), dataOptions),
          new ColumnFamilyDescriptor(LOCAL_CF.getBytes(StandardCharsets.UTF_8), localOptions));
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
      own(owned, db);
      for (ColumnFamilyHandle h : handles) {
        own(owned, h); // closed before the DB: reverse order
      }
      return new RocksHandles(db, handles.get(1), handles.get(2), asyncWrites, syncWrites, sstOptions, envOptions,
          statistics, owned);
    } catch (RocksDBException | RuntimeException e) {
      closeAll(owned);
      throw new StoreException("open store failed dir=" + dir, e);
    }
  }

  private static ColumnFamilyOptions columnFamily(long writeBuffer, int buffers, CompressionType compression,
                                                  LRUCache cache, BloomFilter bloom) {
    return new ColumnFamilyOptions()
        .setWriteBufferSize(writeBuffer)
        .setMaxWriteBufferNumber(buffers)
        .setCompressionType(compression)
        .setBottommostCompressionType(compression)
        .setLevelCompactionDynamicLevelBytes(true)
        .setTargetFileSizeBase(Math.max(writeBuffer * 2, 4 << 20))
        .setTableFormatConfig(table(cache, bloom));
  }

  private static BlockBasedTableConfig table(LRUCache cache, BloomFilter bloom) {
    BlockBasedTableConfig t = new BlockBasedTableConfig().setBlockSize(4 << 10);
    if (cache == null) {
      t.setNoBlockCache(true);
    } else {
      // Index and filter blocks count against the cache, so memory stays bounded by its size.
      t.setBlockCache(cache).setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true);
    }
    if (bloom != null) {
      t.setFilterPolicy(bloom);
    }
    return t;
  }

  private static <T extends AutoCloseable> T own(Deque<AutoCloseable> owned, T resource) {
    owned.push(resource);
    return resource;
  }

  @Override
  public void close() {
    closeAll(owned);
  }

  private static void closeAll(Deque<AutoCloseable> owned) {
    RuntimeException failure = null;
    while (!owned.isEmpty()) {
      AutoCloseable c = owned.pop();
      try {
        if (c instanceof RocksDB db) {
          db.closeE();
        } else {
          c.close();
        }
      } catch (Exception e) {
        if (failure == null) {
          failure = new StoreException("close store failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
