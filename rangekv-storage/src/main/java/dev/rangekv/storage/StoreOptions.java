package dev.rangekv.storage;

/**
 * Tuning of a {@link NodeStore}, with defaults sized for a 2-core, small-memory machine.
 *
 * @param blockCacheBytes shared LRU block cache for all column families
 * @param writeBufferBytes memtable size of the data column family (the local column family gets a quarter)
 * @param bloomFilters whole-key bloom filters (10 bits/key) on data blocks, for fast misses
 * @param lz4Compression LZ4 on every level; off means no compression
 * @param syncWrites fsync the WAL on every write; when off the WAL is still written (a process crash
 *     loses nothing, a machine crash may lose the last writes but never half a batch)
 */
public record StoreOptions(long blockCacheBytes, long writeBufferBytes, boolean bloomFilters,
                           boolean lz4Compression, boolean syncWrites) {

  public StoreOptions {
    if (blockCacheBytes < 0) {
      throw new IllegalArgumentException("blockCacheBytes must be >= 0, got " + blockCacheBytes);
    }
    if (writeBufferBytes < 64 * 1024) {
      throw new IllegalArgumentException("writeBufferBytes must be >= 64 KiB, got " + writeBufferBytes);
    }
  }

  /** 64 MiB block cache, 16 MiB write buffer, bloom filters and LZ4 on, no fsync per write. */
  public static StoreOptions defaults() {
    return new StoreOptions(64L << 20, 16L << 20, true, true, false);
  }

  public StoreOptions withBlockCacheBytes(long bytes) {
    return new StoreOptions(bytes, writeBufferBytes, bloomFilters, lz4Compression, syncWrites);
  }

  public StoreOptions withWriteBufferBytes(long bytes) {
    return new StoreOptions(blockCacheBytes, bytes, bloomFilters, lz4Compression, syncWrites);
  }

  public StoreOptions withBloomFilters(boolean on) {
    return new StoreOptions(blockCacheBytes, writeBufferBytes, on, lz4Compression, syncWrites);
  }

  public StoreOptions withLz4Compression(boolean on) {
    return new StoreOptions(blockCacheBytes, writeBufferBytes, bloomFilters, on, syncWrites);
  }

  public StoreOptions withSyncWrites(boolean sync) {
    return new StoreOptions(blockCacheBytes, writeBufferBytes, bloomFilters, lz4Compression, sync);
  }
}
