package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random puts, deletes, batches, range deletes, point reads and span scans (both directions, limits) and
 * snapshots against a {@code TreeMap} model. One store for all cases (opens are slow); each case works
 * under its own key prefix.
 */
@Timeout(120)
class NodeStorePropertyTest {
  @TempDir static Path dir;
  static NodeStore store;
  static int caseNumber;

  @BeforeAll
  static void open() {
    // A small write buffer so cases also read across flushed SST files, not just the memtable.
    store = NodeStore.open(dir, StoreOptions.defaults().withWriteBufferBytes(256 << 10));
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @Test
  void store_behavesLikeASortedMap() {
    Property.named("store vs TreeMap").cases(1000).sizes(1, 40).check(g -> {
      StoreModel model = new StoreModel(caseNumber++);
      StoreSnapshot snapshot = null;
      TreeMap<Key, byte[]> atSnapshot = null;
      for (int op = 0; op < g.size(); op++) {
        if (snapshot == null && g.chance(0.05)) {
          snapshot = store.snapshot();
          atSnapshot = new TreeMap<>(model.map);
        }
        step(g, model);
        check(g, model);
      }
      if (snapshot != null) {
        try (StoreSnapshot s = snapshot) {
          Key lo = model.lo(g);
          RangeEnd hi = model.hi(g, lo);
          boolean reverse = g.nextBoolean();
          StoreModel old = new StoreModel(caseNumber - 1);
          old.map.putAll(atSnapshot);
          StoreModel.assertSameEntries(s.scan(lo, hi, Integer.MAX_VALUE, reverse),
              old.scan(lo, hi, Integer.MAX_VALUE, reverse));
          Key k = model.key(g);
          assertThat(s.get(k).orElse(null)).isEqualTo(atSnapshot.get(k));
        }
      }
      // The whole prefix, to catch anything a partial check missed.
      StoreModel.assertSameEntries(store.scan(model.prefix, model.prefix.prefixEnd(), Integer.MAX_VALUE, false),
          model.scan(model.prefix, model.prefix.prefixEnd(), Integer.MAX_VALUE, false));
    });
  }

  private static void step(Gen g, StoreModel model) {
    try (WriteBatchBuilder b = store.newBatch()) {
      int n = g.chance(0.5) ? 1 : g.between(2, 8);
      TreeMap<Key, byte[]> next = new TreeMap<>(model.map);
      for (int i = 0; i < n; i++) {
        int kind = g.nextInt(10);
        if (kind < 6) {
          Key k = model.key(g);
          byte[] v = model.value(g);
          b.put(k, v);
          next.put(k, v);
        } else if (kind < 9) {
          Key k = g.chance(0.7) && !next.isEmpty() ? g.pick(new ArrayList<>(next.keySet())) : model.key(g);
          b.delete(k);
          next.remove(k);
        } else {
          Key lo = model.lo(g);
          RangeEnd hi = model.hi(g, lo);
          b.deleteRange(lo, hi);
          StoreModel tmp = new StoreModel(0);
          tmp.map.putAll(next);
          tmp.span(lo, hi).clear();
          next = tmp.map;
        }
      }
      if (g.chance(0.02)) {
        b.sync();
      }
      store.write(b);
      model.map.clear();
      model.map.putAll(next);
    }
  }

  private static void check(Gen g, StoreModel model) {
    switch (g.nextInt(3)) {
      case 0 -> {
        Key k = model.key(g);
        assertThat(store.get(k).orElse(null)).as("get %s", k).isEqualTo(model.map.get(k));
      }
      case 1 -> {
        List<Key> keys = g.listOf(g.between(0, 6), () -> model.key(g));
        List<Optional<byte[]>> got = store.multiGet(keys);
        assertThat(got).hasSize(keys.size());
        for (int i = 0; i < keys.size(); i++) {
          assertThat(got.get(i).orElse(null)).as("multiGet %s", keys.get(i)).isEqualTo(model.map.get(keys.get(i)));
        }
      }
      default -> {
        Key lo = model.lo(g);
        RangeEnd hi = model.hi(g, lo);
        int limit = g.chance(0.3) ? Integer.MAX_VALUE : g.between(0, 10);
        boolean reverse = g.nextBoolean();
        StoreModel.assertSameEntries(store.scan(lo, hi, limit, reverse), model.scan(lo, hi, limit, reverse));
      }
    }
  }
}
