package dev.rangekv.bench.multiraft;

import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Where a group's store writes go and what its flush means: the group's own batch written and synced
 * on flush (per-group runtime), or the stripe's cycle batch, synced once at the end of the cycle
 * (node-wide runtime, where flush only marks the group). Called on the group's executor thread only.
 */
interface WriteTarget {
  WriteBatch batch();

  /** Tells the target that {@code store} has just added to {@link #batch()}. */
  void wrote(GroupStore store);

  /** Makes the group's writes so far durable now, or marks them to be made durable with the cycle. */
  void flush(GroupStore store) throws RocksDBException;
}
