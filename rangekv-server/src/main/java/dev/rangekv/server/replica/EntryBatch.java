package dev.rangekv.server.replica;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.WriteBatchBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One Raft entry's write batch for one range, readable as it grows: a read sees the store as it is
 * plus every change made earlier in the same batch. Several client writes applied as one entry need
 * this: a compare-and-set must see the put before it, and a retried write the dedupe record its
 * original left a moment earlier. Not thread-safe (one apply thread).
 */
final class EntryBatch {
  private final NodeStore store;
  private final long rangeId;
  private final WriteBatchBuilder batch;
  /** Keys this batch put (value) or deleted (null), newest change only. */
  private final Map<Key, byte[]> data = new HashMap<>();
  /** Spans this batch range-deleted; keys put after the delete are in {@link #data}. */
  private final List<CommandApplier.Span> deletedSpans = new ArrayList<>();
  /** The range's local fields this batch put (value) or deleted (null). */
  private final TreeMap<String, byte[]> local = new TreeMap<>();
  /**
   * Local fields read from the store during this entry: the store does not change until the batch is
   * written, and the writes of one entry mostly come from one client, whose dedupe floor each reads.
   */
  private final Map<String, Optional<byte[]>> storedLocal = new HashMap<>();
  /** The range's dedupe table as held in memory, kept equal to the store plus this batch's changes. */
  private final RecentWriteIds writeIds;

  EntryBatch(NodeStore store, long rangeId, WriteBatchBuilder batch, RecentWriteIds writeIds) {
    this.store = store;
    this.rangeId = rangeId;
    this.batch = batch;
    this.writeIds = writeIds;
  }

  /** A batch whose range holds nothing of its dedupe table in memory (it loads what it needs). */
  EntryBatch(NodeStore store, long rangeId, WriteBatchBuilder batch) {
    this(store, rangeId, batch, new RecentWriteIds());
  }

  long rangeId() {
    return rangeId;
  }

  Optional<byte[]> get(Key key) {
    if (data.containsKey(key)) {
      return Optional.ofNullable(data.get(key));
    }
    for (CommandApplier.Span s : deletedSpans) {
      if (s.lo().compareTo(key) <= 0 && s.hi().isAbove(key)) {
        return Optional.empty();
      }
    }
    return store.get(key);
  }

  void put(Key key, byte[] value) {
    batch.put(key, value);
    data.put(key, value);
  }

  void delete(Key key) {
    batch.delete(key);
    data.put(key, null);
  }

  void deleteRange(Key lo, RangeEnd hi) {
    batch.deleteRange(lo, hi);
    data.keySet().removeIf(k -> lo.compareTo(k) <= 0 && hi.isAbove(k));
    deletedSpans.add(new CommandApplier.Span(lo, hi));
  }

  Optional<byte[]> localGet(String field) {
    if (local.containsKey(field)) {
      return Optional.ofNullable(local.get(field));
    }
    return storedLocal.computeIfAbsent(field, f -> store.localGet(rangeId, f));
  }

  RecentWriteIds writeIds() {
    return writeIds;
  }

  void localPut(String field, byte[] value) {
    batch.localPut(rangeId, field, value);
    local.put(field, value);
  }

  void localDelete(String field) {
    batch.localDelete(rangeId, field);
    local.put(field, null);
  }

  /** Names of the live local fields in {@code [from, to)}: stored ones and this batch's puts, less its deletes. */
  List<String> localFields(String from, String to) {
    java.util.TreeSet<String> names = new java.util.TreeSet<>();
    store.localScan(rangeId, from, to).forEach(e -> names.add(e.getKey()));
    local.subMap(from, to).forEach((name, value) -> {
      if (value == null) {
        names.remove(name);
      } else {
        names.add(name);
      }
    });
    return List.copyOf(names);
  }
}
