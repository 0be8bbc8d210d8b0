package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A span replaced by a restore with overwrite ({@link NodeStore#replaceSpan}): exact, and atomic to readers. */
@Timeout(60)
class ReplaceSpanTest {
  private static final Key LO = Key.utf8("s/");
  private static final RangeEnd HI = RangeEnd.at(Key.utf8("s0"));

  @TempDir Path dir;

  private static Map<String, String> keys(int from, int to, String value) {
    Map<String, String> m = new TreeMap<>();
    for (int i = from; i < to; i++) {
      m.put(String.format("s/%04d", i), value);
    }
    return m;
  }

  private static void put(NodeStore s, Map<String, String> kv) {
    try (WriteBatchBuilder b = s.newBatch()) {
      kv.forEach((k, v) -> b.put(Key.utf8(k), v.getBytes(StandardCharsets.UTF_8)));
      s.write(b);
    }
  }

  private static Map<String, String> read(NodeStore s, Key lo, RangeEnd hi) {
    Map<String, String> m = new TreeMap<>();
    for (KeyValue kv : s.scan(lo, hi, 100_000, false)) {
      m.put(kv.key().toUtf8(), new String(kv.value(), StandardCharsets.UTF_8));
    }
    return m;
  }

  /** SST files of {@code kv}, exported from a scratch store into {@code out}, about 256 bytes each. */
  private List<Path> files(Map<String, String> kv, String name) {
    try (NodeStore src = NodeStore.open(dir.resolve("src-" + name), StoreOptions.defaults())) {
      put(src, kv);
      return src.exportSpan(LO, HI, dir.resolve("out-" + name), 256).files();
    }
  }

  @Test
  void replace_leavesExactlyTheFilesKeys_andNothingOutsideTheSpanChanges() {
    try (NodeStore s = NodeStore.open(dir.resolve("db"), StoreOptions.defaults())) {
      put(s, keys(0, 50, "old"));
      put(s, Map.of("r/x", "left", "t/x", "right"));
      Map<String, String> fresh = keys(25, 75, "new");
      List<Path> files = files(fresh, "a");
      assertThat(files).hasSizeGreaterThan(1);

      s.replaceSpan(LO, HI, files, dir.resolve("scratch"));

      assertThat(read(s, LO, HI)).isEqualTo(fresh);
      assertThat(read(s, Key.EMPTY, RangeEnd.INFINITY)).containsEntry("r/x", "left").containsEntry("t/x", "right")
          .hasSize(fresh.size() + 2);
      s.replaceSpan(LO, HI, List.of(), dir.resolve("scratch"));
      assertThat(read(s, LO, HI)).isEmpty();
    }
  }

  @Test
  void aConcurrentReader_seesTheOldSpanOrTheNewOne_neverItEmptyOrMixed() throws Exception {
    Map<String, String> a = keys(0, 400, "A");
    Map<String, String> b = keys(200, 600, "B");
    try (NodeStore s = NodeStore.open(dir.resolve("db"), StoreOptions.defaults())) {
      put(s, a);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger reads = new AtomicInteger();
      List<String> odd = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread reader = new Thread(() -> {
        while (!stop.get()) {
          Map<String, String> seen = read(s, LO, HI);
          reads.incrementAndGet();
          if (!seen.equals(a) && !seen.equals(b)) {
            odd.add(seen.size() + " keys, " + new java.util.HashSet<>(seen.values()) + " values");
          }
        }
      }, "reader");
      reader.start();
      try {
        for (int i = 0; i < 30; i++) {
          int readsBefore = reads.get();
          boolean toB = i % 2 == 0;
          s.replaceSpan(LO, HI, files(toB ? b : a, "r" + i), dir.resolve("scratch"));
          assertThat(read(s, LO, HI)).isEqualTo(toB ? b : a);
          // let the reader scan at least once per replacement, so the replacements interleave with reads
          long deadline = System.nanoTime() + 10_000_000_000L;
          while (reads.get() <= readsBefore + 1 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
          }
        }
      } finally {
        stop.set(true);
        reader.join();
      }
      assertThat(odd).as("scans that were neither the old span nor the new one").isEmpty();
      assertThat(reads.get()).isGreaterThan(30);
    }
  }
}
