package dev.rangekv.storage;

/**
 * A reading of the engine's own counters, for the node's metrics: memory and disk use, compaction debt
 * and block cache traffic (cumulative since the store opened).
 *
 * @param memtableBytes bytes in all memtables of every column family
 * @param sstBytes bytes of the live SST files
 * @param pendingCompactionBytes RocksDB's estimate of the bytes compaction still has to rewrite
 * @param estimatedKeys RocksDB's estimate of the keys of the data column family
 * @param blockCacheHits block cache hits since open
 * @param blockCacheMisses block cache misses since open
 */
public record StoreStats(long memtableBytes, long sstBytes, long pendingCompactionBytes, long estimatedKeys,
                         long blockCacheHits, long blockCacheMisses) {

  /** Hits over lookups since open; 0 before the first lookup. */
  public double blockCacheHitRatio() {
    long lookups = blockCacheHits + blockCacheMisses;
    return lookups == 0 ? 0 : (double) blockCacheHits / lookups;
  }
}
