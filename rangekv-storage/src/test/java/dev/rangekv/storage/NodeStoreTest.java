package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class NodeStoreTest {
  @TempDir Path dir;

  static Key k(String s) {
    return Key.utf8(s);
  }

  static byte[] v(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static RangeLocalState state(long id, String start, String end, long term, long index) {
    RangeEnd e = end == null ? RangeEnd.INFINITY : RangeEnd.at(k(end));
    return new RangeLocalState(new RangeDescriptor(id, k(start), e, List.of("n1", "n2"), 3), term, index);
  }

  @Test
  void putsAndDeletes_areReadBack_andSurviveReopen() {
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults())) {
      try (WriteBatchBuilder b = s.newBatch()) {
        b.put(k("a"), v("1")).put(k("b"), v("2")).put(k("c"), v("3")).delete(k("b"));
        assertThat(b.count()).isEqualTo(4);
        assertThat(b.dataBytes()).isPositive();
        s.write(b);
      }
      assertThat(s.get(k("a"))).hasValueSatisfying(x -> assertThat(x).isEqualTo(v("1")));
      assertThat(s.get(k("b"))).isEmpty();
      assertThat(s.multiGet(List.of(k("c"), k("b"), k("a"))))
          .extracting(o -> o.map(x -> new String(x, StandardCharsets.UTF_8)))
          .containsExactly(Optional.of("3"), Optional.empty(), Optional.of("1"));
    }
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults().withSyncWrites(true))) {
      assertThat(s.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false)).extracting(KeyValue::key)
          .containsExactly(k("a"), k("c"));
    }
  }

  @Test
  void scans_stayInsideTheirSpan_inBothDirections_withLimits() {
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults())) {
      try (WriteBatchBuilder b = s.newBatch()) {
        for (String key : List.of("a", "b", "c", "d", "e")) {
          b.put(k(key), v(key));
        }
        s.write(b);
      }
      assertThat(s.scan(k("b"), RangeEnd.at(k("e")), 10, false)).extracting(kv -> kv.key().toUtf8())
          .containsExactly("b", "c", "d");
      assertThat(s.scan(k("b"), RangeEnd.at(k("e")), 2, true)).extracting(kv -> kv.key().toUtf8())
          .containsExactly("d", "c");
      assertThat(s.scan(k("b"), RangeEnd.INFINITY, Integer.MAX_VALUE, true)).extracting(kv -> kv.key().toUtf8())
          .containsExactly("e", "d", "c", "b");
      assertThat(s.scan(k("b"), RangeEnd.at(k("b")), 10, false)).isEmpty();
      assertThat(s.scan(k("a"), RangeEnd.INFINITY, 0, false)).isEmpty();
    }
  }

  @Test
  void rangeState_andLocalFields_roundTrip_andAreDeletedTogether() {
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults())) {
      assertThat(s.rangeState(7)).isEmpty();
      try (WriteBatchBuilder b = s.newBatch()) {
        b.putRangeState(state(7, "a", "m", 1, 5)).putRangeState(state(9, "m", null, 2, 0));
        b.localPut(7, "dedupe/c1", v("x")).localPut(7, "dedupe/c2", v("y")).localPut(7, "other", v("z"));
        b.localPut(8, "dedupe/c1", v("not mine"));
        s.write(b);
      }
      try (WriteBatchBuilder b = s.newBatch()) {
        s.write(b.setApplied(7, 2, 6).localDelete(7, "dedupe/c2"));
      }
      assertThat(s.rangeState(7)).contains(state(7, "a", "m", 2, 6));
      assertThat(s.allRangeStates()).containsExactly(state(7, "a", "m", 2, 6), state(9, "m", null, 2, 0));
      assertThat(s.localGet(7, "other")).hasValueSatisfying(x -> assertThat(x).isEqualTo(v("z")));
      List<Map.Entry<String, byte[]>> fields = s.localScan(7, "dedupe/");
      assertThat(fields).extracting(Map.Entry::getKey).containsExactly("dedupe/c1");

      s.deleteRangeLocalState(7);
      assertThat(s.rangeState(7)).isEmpty();
      assertThat(s.localScan(7, "")).isEmpty();
      assertThat(s.localScan(8, "")).hasSize(1);
      try (WriteBatchBuilder b = s.newBatch()) {
        b.setApplied(7, 3, 7);
        assertThatThrownBy(() -> s.write(b)).isInstanceOf(StoreException.class).hasMessageContaining("rangeId=7");
      }
    }
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults())) {
      assertThat(s.allRangeStates()).containsExactly(state(9, "m", null, 2, 0));
      try (WriteBatchBuilder b = s.newBatch()) {
        s.write(b.setApplied(9, 2, 1)); // known after reopen
      }
      assertThat(s.rangeState(9)).contains(state(9, "m", null, 2, 1));
    }
  }

  @Test
  void snapshot_seesOnePointInTime() {
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults())) {
      try (WriteBatchBuilder b = s.newBatch()) {
        s.write(b.put(k("a"), v("1")).put(k("b"), v("1")));
      }
      try (StoreSnapshot snap = s.snapshot()) {
        try (WriteBatchBuilder b = s.newBatch()) {
          s.write(b.put(k("a"), v("2")).delete(k("b")).put(k("c"), v("2")));
        }
        assertThat(snap.get(k("a"))).hasValueSatisfying(x -> assertThat(x).isEqualTo(v("1")));
        assertThat(snap.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false)).extracting(kv -> kv.key().toUtf8())
            .containsExactly("a", "b");
        assertThat(s.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false)).extracting(kv -> kv.key().toUtf8())
            .containsExactly("a", "c");
      }
    }
  }

  @Test
  void deleteRange_toInfinity_andDeleteSpan_removeOnlyTheSpan() {
    try (NodeStore s = NodeStore.open(dir, StoreOptions.defaults())) {
      try (WriteBatchBuilder b = s.newBatch()) {
        s.write(b.put(k("a"), v("1")).put(k("b"), v("1")).put(k("c"), v("1")).put(k("d\u00ff"), v("1")));
      }
      try (WriteBatchBuilder b = s.newBatch()) {
        s.write(b.deleteRange(k("c"), RangeEnd.INFINITY));
      }
      assertThat(s.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false)).extracting(kv -> kv.key().toUtf8())
          .containsExactly("a", "b");
      s.deleteSpan(k("a"), RangeEnd.at(k("b")));
      assertThat(s.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false)).extracting(kv -> kv.key().toUtf8())
          .containsExactly("b");
      s.deleteSpan(Key.EMPTY, RangeEnd.INFINITY);
      assertThat(s.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false)).isEmpty();
      s.compactSpan(Key.EMPTY, RangeEnd.INFINITY);
      assertThat(s.approximateSize(Key.EMPTY, RangeEnd.INFINITY)).isEqualTo(new SpanSize(0, 0));
    }
  }

  @Test
  void closedStore_failsCleanly_andCloseIsIdempotent() {
    NodeStore s = NodeStore.open(dir, StoreOptions.defaults());
    StoreSnapshot snap = s.snapshot();
    WriteBatchBuilder b = s.newBatch().put(k("a"), v("1"));
    s.close();
    s.close();
    snap.close(); // released by the store's close already
    assertThatThrownBy(() -> s.get(k("a"))).isInstanceOf(StoreException.class).hasMessageContaining("closed");
    assertThatThrownBy(() -> snap.get(k("a"))).isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> s.write(b)).isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> b.put(k("b"), v("2"))).isInstanceOf(StoreException.class);
    b.close();
  }

  @Test
  void optionsWithoutCacheBloomOrCompression_work() {
    StoreOptions o = StoreOptions.defaults().withBlockCacheBytes(0).withBloomFilters(false)
        .withLz4Compression(false).withWriteBufferBytes(1 << 20);
    try (NodeStore s = NodeStore.open(dir, o)) {
      try (WriteBatchBuilder b = s.newBatch()) {
        s.write(b.put(k("a"), v("1")).sync());
      }
      s.flush();
      assertThat(s.get(k("a"))).isPresent();
    }
  }
}
