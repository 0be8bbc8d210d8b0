package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Many range state machines share one store: concurrent batches, reads and a close in the middle. */
@Timeout(60)
class ConcurrencyTest {
  @TempDir Path dir;

  @Test
  void concurrentRanges_applyIndependently_andCloseStopsThemCleanly() throws Exception {
    int ranges = 4;
    int batches = 500;
    NodeStore store = NodeStore.open(dir, StoreOptions.defaults());
    ExecutorService pool = Executors.newFixedThreadPool(ranges);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int r = 0; r < ranges; r++) {
        long id = r;
        Key start = Key.utf8("r" + r + "/");
        done.add(pool.submit(() -> {
          try (WriteBatchBuilder b = store.newBatch()) {
            store.write(b.putRangeState(new RangeLocalState(
                new RangeDescriptor(id, start, start.prefixEnd(), List.of("n1"), 1), 1, 0)));
          }
          for (int i = 1; i <= batches; i++) {
            try (WriteBatchBuilder b = store.newBatch()) {
              store.write(b.put(start.concat(Key.utf8(String.format("%05d", i))), new byte[32]).setApplied(id, 1, i));
            }
            assertThat(store.scan(start, start.prefixEnd(), 5, true)).isNotEmpty();
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
      for (int r = 0; r < ranges; r++) {
        Key start = Key.utf8("r" + r + "/");
        assertThat(store.rangeState(r).orElseThrow().appliedIndex()).isEqualTo(batches);
        assertThat(store.scan(start, start.prefixEnd(), Integer.MAX_VALUE, false)).hasSize(batches);
      }

      // Readers running while the store closes either finish or get a StoreException, never a crash.
      CountDownLatch started = new CountDownLatch(ranges);
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < ranges; r++) {
        readers.add(pool.submit(() -> {
          started.countDown();
          int reads = 0;
          try {
            while (true) {
              store.scan(Key.EMPTY, RangeEnd.INFINITY, 10, false);
              reads++;
            }
          } catch (StoreException closed) {
            assertThat(closed).hasMessageContaining("closed");
            return reads;
          }
        }));
      }
      started.await(10, TimeUnit.SECONDS);
      store.close();
      for (Future<Integer> f : readers) {
        assertThat(f.get(10, TimeUnit.SECONDS)).isNotNegative();
      }
    } finally {
      pool.shutdownNow();
      store.close();
    }
  }

  @Test
  void allRangeStates_whileRangesAreCreated_seesEachRangeWhole() throws Exception {
    int created = 2_000;
    NodeStore store = NodeStore.open(dir, StoreOptions.defaults());
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      // a split's batch puts the child's descriptor and applied record together
      Future<?> writer = pool.submit(() -> {
        for (int id = 0; id < created; id++) {
          Key start = Key.utf8(String.format("r%05d/", id));
          try (WriteBatchBuilder b = store.newBatch()) {
            store.write(b.putRangeState(new RangeLocalState(
                new RangeDescriptor(id, start, start.prefixEnd(), List.of("n1"), 1), 1, 0)));
          }
        }
        return null;
      });
      int seen = 0;
      while (!writer.isDone()) {
        seen = Math.max(seen, store.allRangeStates().size()); // threw: a descriptor without its applied record
      }
      writer.get(30, TimeUnit.SECONDS);
      assertThat(store.allRangeStates()).hasSize(created);
      assertThat(seen).isLessThanOrEqualTo(created);
    } finally {
      pool.shutdownNow();
      store.close();
    }
  }
}
