package dev.rangekv.server.stats;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.server.replica.RangeStateMachine;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.storage.NodeStore;
import java.util.List;
import java.util.Optional;

/**
 * Append baselines from this node's store: one reverse seek bounded to the range's current span (the
 * store holds every local range's data in one keyspace). {@link TailBaseline#UNKNOWN} for a range this
 * node does not hold or that is still pending. Thread-safe.
 */
public final class StoreTailBaselines implements TailBaseline.Lookup {
  private final ReplicaDirectory directory;
  private final NodeStore store;

  public StoreTailBaselines(ReplicaDirectory directory, NodeStore store) {
    this.directory = directory;
    this.store = store;
  }

  @Override
  public TailBaseline baseline(long rangeId) {
    Optional<RangeDescriptor> d = directory.replica(rangeId).flatMap(RangeStateMachine::descriptor);
    if (d.isEmpty()) {
      return TailBaseline.UNKNOWN;
    }
    // NodeStore has no key-only reverse seek: a one-row reverse scan copies that row's value too, once
    // per range and interval.
    List<KeyValue> last = store.scan(d.get().start(), d.get().end(), 1, true);
    return last.isEmpty() ? TailBaseline.EMPTY : TailBaseline.of(last.get(0).key());
  }
}
