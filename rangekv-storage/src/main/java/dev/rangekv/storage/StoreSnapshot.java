package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.List;
import java.util.Optional;

/**
 * A consistent point-in-time view of a store's user data: every read through it sees one RocksDB
 * snapshot. Must be closed (it pins old versions); closing the store closes it too. Thread-safe.
 */
public interface StoreSnapshot extends AutoCloseable {
  Optional<byte[]> get(Key key);

  /** As {@link NodeStore#scan}, at this snapshot's point. */
  List<KeyValue> scan(Key lo, RangeEnd hi, int limit, boolean reverse);

  @Override
  void close();
}
