package dev.rangekv.server.stats;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Append baselines from this node's store: one reverse seek bounded to the range's current span (the
 * store holds every local range's data in one keyspace). {@link TailBaseline#UNKNOWN} for a range this
 * node does not hold, that is still pending, or when the store is closing. Thread-safe.
 */
public final class StoreTailBaselines implements TailBaseline.Lookup {
  private static final Logger log = LoggerFactory.getLogger(StoreTailBaselines.class);

  private final ReplicaDirectory directory;
  private final NodeStore store;

  public StoreTailBaselines(ReplicaDirectory directory, NodeStore store) {
    this.directory = directory;
    this.store = store;
  }

  @Override
  public TailBaseline baseline(long rangeId) {
    Optional<RangeDescriptor> d = directory.replica(rangeId).flatMap(RangeReplica::descriptor);
    if (d.isEmpty()) {
      return TailBaseline.UNKNOWN;
    }
    // NodeStore has no key-only reverse seek: a one-row reverse scan copies that row's value too, once
    // per range and interval.
    List<KeyValue> last;
    try {
      last = store.scan(d.get().start(), d.get().end(), 1, true);
    } catch (StoreException e) {
      // the store is closing: the write this is for fails next; its interval counts no appends
      log.debug("append baseline unknown rangeId={} error={}", rangeId, e.getMessage());
      return TailBaseline.UNKNOWN;
    }
    return last.isEmpty() ? TailBaseline.EMPTY : TailBaseline.of(last.get(0).key());
  }
}
