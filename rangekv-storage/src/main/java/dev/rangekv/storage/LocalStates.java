package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;

/** Reads and deletes of the local column family (the records of {@link LocalStateCodec}). */
final class LocalStates {
  private LocalStates() {}

  static Optional<RangeLocalState> get(RocksHandles rocks, long rangeId) {
    Optional<byte[]> d = SpanReader.get(rocks.db, rocks.local, null, LocalStateCodec.descriptorKey(rangeId));
    if (d.isEmpty()) {
      return Optional.empty();
    }
    byte[] applied = SpanReader.get(rocks.db, rocks.local, null, LocalStateCodec.appliedKey(rangeId))
        .orElseThrow(() -> new StoreException("range state without applied record rangeId=" + rangeId));
    long[] ti = LocalStateCodec.decodeApplied(applied);
    return Optional.of(new RangeLocalState(LocalStateCodec.decodeDescriptor(d.get()), ti[0], ti[1]));
  }

  static List<RangeLocalState> all(RocksHandles rocks) {
    // Both scans read one snapshot: a split's batch (the child's descriptor and applied record) landing
    // between them showed a descriptor without its applied record.
    Snapshot snapshot = rocks.db.getSnapshot();
    try {
      return all(rocks, snapshot);
    } finally {
      rocks.db.releaseSnapshot(snapshot);
    }
  }

  private static List<RangeLocalState> all(RocksHandles rocks, Snapshot snapshot) {
    Map<Long, long[]> applied = new HashMap<>();
    forEachTagged(rocks, snapshot, LocalStateCodec.APPLIED_TAG,
        it -> applied.put(LocalStateCodec.rangeIdOf(it.key()), LocalStateCodec.decodeApplied(it.value())));
    List<RangeLocalState> out = new ArrayList<>();
    forEachTagged(rocks, snapshot, LocalStateCodec.DESCRIPTOR_TAG, it -> {
      long id = LocalStateCodec.rangeIdOf(it.key());
      long[] ti = applied.get(id);
      if (ti == null) {
        throw new StoreException("range state without applied record rangeId=" + id);
      }
      out.add(new RangeLocalState(LocalStateCodec.decodeDescriptor(it.value()), ti[0], ti[1]));
    });
    return out;
  }

  static List<Map.Entry<String, byte[]>> scanFields(RocksHandles rocks, long rangeId, String fieldPrefix) {
    Key lo = Key.of(LocalStateCodec.fieldKey(rangeId, fieldPrefix));
    List<Map.Entry<String, byte[]>> out = new ArrayList<>();
    for (KeyValue kv : SpanReader.scan(rocks.db, rocks.local, null, lo, lo.prefixEnd(), Integer.MAX_VALUE, false)) {
      out.add(new AbstractMap.SimpleImmutableEntry<>(LocalStateCodec.fieldOf(kv.key().toByteArray()), kv.value()));
    }
    return out;
  }

  static List<Map.Entry<String, byte[]>> scanFields(RocksHandles rocks, long rangeId, String fromField, String toField) {
    Key lo = Key.of(LocalStateCodec.fieldKey(rangeId, fromField));
    RangeEnd hi = RangeEnd.at(Key.of(LocalStateCodec.fieldKey(rangeId, toField)));
    List<Map.Entry<String, byte[]>> out = new ArrayList<>();
    for (KeyValue kv : SpanReader.scan(rocks.db, rocks.local, null, lo, hi, Integer.MAX_VALUE, false)) {
      out.add(new AbstractMap.SimpleImmutableEntry<>(LocalStateCodec.fieldOf(kv.key().toByteArray()), kv.value()));
    }
    return out;
  }

  /** Deletes descriptor, applied record and every field of the range, durably, in one batch. */
  static void delete(RocksHandles rocks, long rangeId) {
    Key fields = Key.of(LocalStateCodec.fieldKey(rangeId, ""));
    // The field prefix starts with tag 0x03, so its prefix end is always finite.
    byte[] fieldsEnd = fields.prefixEnd().key().toByteArray();
    try (WriteBatch b = new WriteBatch()) {
      b.delete(rocks.local, LocalStateCodec.descriptorKey(rangeId));
      b.delete(rocks.local, LocalStateCodec.appliedKey(rangeId));
      b.deleteRange(rocks.local, fields.toByteArray(), fieldsEnd);
      rocks.db.write(rocks.syncWrites, b);
    } catch (RocksDBException e) {
      throw new StoreException("delete range local state failed rangeId=" + rangeId, e);
    }
  }

  private interface EntryVisitor {
    void visit(RocksIterator it);
  }

  private static void forEachTagged(RocksHandles rocks, Snapshot snapshot, byte tag, EntryVisitor visitor) {
    Key lo = Key.of(new byte[] {tag});
    RangeEnd hi = RangeEnd.at(Key.of(new byte[] {(byte) (tag + 1)}));
    try (SpanReader.Cursor c = SpanReader.cursor(rocks.db, rocks.local, snapshot, lo, hi)) {
      for (c.it.seekToFirst(); c.it.isValid(); c.it.next()) {
        visitor.visit(c.it);
      }
      c.check("scan local state tag=" + tag);
    }
  }
}
