package dev.rangekv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Export a random span of a source store into size-bounded SST files, ingest it into a target store that
 * holds other data inside and outside the span: the target's span then equals the source's, everything
 * outside is untouched, and the range state is the one given.
 */
@Timeout(120)
class SpanSnapshotPropertyTest {
  @TempDir static Path dir;
  static NodeStore source;
  static NodeStore target;
  /** Case prefixes start at 1: prefix 0 belongs to the rejection test, below every case. */
  static int caseNumber = 1;

  @BeforeAll
  static void open() {
    StoreOptions o = StoreOptions.defaults().withWriteBufferBytes(256 << 10);
    source = NodeStore.open(dir.resolve("source"), o);
    target = NodeStore.open(dir.resolve("target"), o);
  }

  @AfterAll
  static void close() {
    source.close();
    target.close();
  }

  @Test
  void exportThenIngest_replacesExactlyTheSpan() {
    Property.named("span export/ingest round trip").cases(150).sizes(0, 60).check(g -> {
      int n = caseNumber++;
      StoreModel src = new StoreModel(n);
      StoreModel dst = new StoreModel(n);
      fill(g, source, src);
      fill(g, target, dst);
      if (g.chance(0.3)) {
        source.flush();
      }
      Key lo = src.lo(g);
      RangeEnd hi = src.hi(g, lo);
      if (!hi.isAbove(lo)) {
        hi = lo.prefixEnd();
      }
      long maxFileBytes = g.chance(0.5) ? g.between(1, 200) : 1 << 20;
      Path out = dir.resolve("export-" + n);
      SpanExport export = source.exportSpan(lo, hi, out, maxFileBytes);
      // Writes after the export must not leak into it: it is one point in time.
      try (WriteBatchBuilder b = source.newBatch()) {
        source.write(b.put(src.key(g), src.value(g)));
      }

      assertThat(export.keys()).isEqualTo(src.span(lo, hi).size());
      assertThat(export.files()).hasSizeLessThanOrEqualTo((int) Math.max(export.keys(), 0));
      if (maxFileBytes >= 1 << 20) {
        assertThat(export.files()).hasSizeLessThanOrEqualTo(1);
      }
      long fileBytes = 0;
      for (Path f : export.files()) {
        fileBytes += Files.size(f);
      }
      assertThat(export.bytes()).isEqualTo(fileBytes);

      RangeLocalState state = new RangeLocalState(
          new RangeDescriptor(n, lo, hi, List.of("n1", "n2", "n3"), g.between(0, 100)), g.between(0, 9),
          g.between(0, 1000));
      target.ingestSpan(lo, hi, export.files(), state);
      deleteRecursively(out);

      dst.span(lo, hi).clear();
      dst.map.putAll(src.span(lo, hi));
      StoreModel.assertSameEntries(target.scan(dst.prefix, dst.prefix.prefixEnd(), Integer.MAX_VALUE, false),
          dst.scan(dst.prefix, dst.prefix.prefixEnd(), Integer.MAX_VALUE, false));
      assertThat(target.rangeState(n)).contains(state);
    });
  }

  @Test
  void ingest_rejectsFilesOutsideTheSpan() throws IOException {
    StoreModel m = new StoreModel(0);
    try (WriteBatchBuilder b = source.newBatch()) {
      source.write(b.put(m.prefix.concat(Key.utf8("a")), new byte[1]).put(m.prefix.concat(Key.utf8("z")), new byte[1]));
    }
    Path out = dir.resolve("outside");
    SpanExport export = source.exportSpan(m.prefix, m.prefix.prefixEnd(), out, 1 << 20);
    RangeLocalState state = new RangeLocalState(
        new RangeDescriptor(5, m.prefix, RangeEnd.at(m.prefix.concat(Key.utf8("m"))), List.of("n1"), 1), 1, 1);
    assertThatThrownBy(() -> target.ingestSpan(m.prefix, RangeEnd.at(m.prefix.concat(Key.utf8("m"))),
        export.files(), state)).isInstanceOf(StoreException.class).hasMessageContaining("leaves the span");
    assertThat(target.rangeState(5)).isEmpty();
    deleteRecursively(out);
  }

  @Test
  void export_writesFilesOfBoundedSize() throws IOException {
    Key lo = Key.utf8("b/");
    RangeEnd hi = lo.prefixEnd();
    try (NodeStore from = NodeStore.open(dir.resolve("bounded-from"), StoreOptions.defaults());
         NodeStore to = NodeStore.open(dir.resolve("bounded-to"), StoreOptions.defaults())) {
      try (WriteBatchBuilder b = from.newBatch()) {
        for (int i = 0; i < 5000; i++) {
          b.put(lo.concat(Key.utf8(String.format("%06d", i))), new byte[100]);
        }
        from.write(b.put(Key.utf8("a"), new byte[1]).put(Key.utf8("c"), new byte[1]));
      }
      long max = 64 << 10;
      Path out = dir.resolve("bounded");
      SpanExport export = from.exportSpan(lo, hi, out, max);
      assertThat(export.keys()).isEqualTo(5000);
      // 5000 entries of 108 bytes in pieces of 64 KiB of entries: 9 files.
      assertThat(export.files()).hasSize(9);
      for (Path f : export.files()) {
        assertThat(Files.size(f)).isLessThan(max + (16 << 10)); // one entry over, plus index and filter blocks
      }
      RangeLocalState state = new RangeLocalState(new RangeDescriptor(77, lo, hi, List.of("n1"), 1), 1, 10);
      to.ingestSpan(lo, hi, export.files(), state);
      assertThat(to.scan(Key.EMPTY, RangeEnd.INFINITY, Integer.MAX_VALUE, false)).hasSize(5000);
      assertThat(to.approximateSize(lo, hi).approximateKeys()).isBetween(4000L, 6000L);
      deleteRecursively(out);
    }
  }

  private static void fill(Gen g, NodeStore store, StoreModel model) {
    try (WriteBatchBuilder b = store.newBatch()) {
      int n = g.between(0, g.size());
      for (int i = 0; i < n; i++) {
        Key k = model.key(g);
        byte[] v = model.value(g);
        b.put(k, v);
        model.map.put(k, v);
      }
      store.write(b);
    }
  }

  private static void deleteRecursively(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> files = Files.walk(p)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
