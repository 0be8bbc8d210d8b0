package dev.rangekv.server.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.Mutation;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The append signal against a brute-force model: two ranges over model stores, writes that append or
 * land inside, deletes, failed batches and drains at random points. Single-threaded, so exact.
 */
class AppendSignalPropertyTest {
  /** What the model expects of one range's current interval. */
  private static final class Expected {
    /** The range's greatest key at the interval's first write; empty when it held none. */
    Optional<Key> baseline;
    long writes;
    long puts;
    long appends;
    Key max;

    TailWrites tail() {
      return puts == 0 ? TailWrites.NONE : new TailWrites(puts, appends, Optional.of(max));
    }
  }

  @Test
  void appends_areThePutsAboveTheRangesGreatestKeyAtTheIntervalsFirstWrite() {
    Property.named("append signal").cases(1000).sizes(1, 80).check(g -> {
      List<TreeSet<Key>> stores = List.of(new TreeSet<>(), new TreeSet<>());
      LoadRecorder rec = new LoadRecorder(16, 2, g.nextLong(),
          id -> stores.get((int) id).isEmpty() ? TailBaseline.EMPTY : TailBaseline.of(stores.get((int) id).last()), 0);
      Expected[] expected = {new Expected(), new Expected()};
      int[] next = {0};
      for (int op = 0; op < g.size(); op++) {
        if (g.chance(0.15)) {
          check(rec.drain(op), expected);
          expected[0] = new Expected();
          expected[1] = new Expected();
          continue;
        }
        int id = g.nextInt(2);
        TreeSet<Key> store = stores.get(id);
        Expected e = expected[id];
        List<Mutation> batch = batch(g, next);
        rec.beforeWrite(id);
        if (e.baseline == null) {
          e.baseline = store.isEmpty() ? Optional.empty() : Optional.of(store.last());
        }
        boolean succeeded = g.chance(0.9);
        for (Mutation m : batch) {
          e.writes++;
          Key k = Key.of((m.hasPut() ? m.getPut().getKey() : m.getDelete()).toByteArray());
          if (succeeded && m.hasPut()) {
            store.add(k);
            e.puts++;
            e.appends += e.baseline.isEmpty() || k.compareTo(e.baseline.get()) > 0 ? 1 : 0;
            e.max = e.max == null || k.compareTo(e.max) > 0 ? k : e.max;
          } else if (succeeded) {
            store.remove(k);
          }
        }
        rec.recordWrite(id, batch, succeeded);
      }
      check(rec.drain(g.size()), expected);
    });
  }

  /** 1 to 3 puts or deletes: mostly ascending new keys (appends), else keys inside what exists. */
  private static List<Mutation> batch(Gen g, int[] next) {
    List<Mutation> out = new ArrayList<>();
    int n = g.between(1, 3);
    for (int i = 0; i < n; i++) {
      String key = g.chance(0.6) || next[0] == 0
          ? String.format("k%06d", next[0]++)
          : String.format("k%06d", g.nextInt(next[0]));
      out.add(g.chance(0.85)
          ? LoadRecorderTest.put(key)
          : Mutation.newBuilder().setDelete(LoadRecorderTest.bytes(key)).build());
    }
    return out;
  }

  private static void check(LoadInterval drained, Expected[] expected) {
    for (int id = 0; id < expected.length; id++) {
      Optional<RangeLoadInterval> got = drained.range(id);
      if (expected[id].writes == 0) {
        assertThat(got).as("range %d", id).isEmpty();
        continue;
      }
      assertThat(got).as("range %d", id).isPresent();
      assertThat(got.get().writes()).as("writes of range %d", id).isEqualTo(expected[id].writes);
      assertThat(got.get().tail()).as("tail of range %d", id).isEqualTo(expected[id].tail());
    }
  }
}
