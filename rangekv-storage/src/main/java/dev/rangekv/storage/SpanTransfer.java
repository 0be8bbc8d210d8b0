package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.Snapshot;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;
import org.rocksdb.SstFileWriter;
import org.rocksdb.WriteBatch;

/**
 * Span snapshots for moving replicas (export to SST files at one snapshot, ingest replacing a span) and
 * span deletion when a replica leaves.
 */
final class SpanTransfer {
  private final RocksHandles rocks;

  SpanTransfer(RocksHandles rocks) {
    this.rocks = rocks;
  }

  /**
   * Writes {@code [lo, hi)} as of one RocksDB snapshot into {@code dir/span-NNNNNN.sst}. A file is closed
   * once its key and value bytes reach {@code maxFileBytes}, so files stay near that size (the file adds
   * its index and filter blocks) and a large range streams in pieces.
   */
  SpanExport export(Key lo, RangeEnd hi, Path dir, long maxFileBytes) {
    Snapshot snapshot = rocks.db.getSnapshot();
    try {
      return export(snapshot, lo, hi, dir, maxFileBytes);
    } finally {
      rocks.db.releaseSnapshot(snapshot);
    }
  }

  /** As {@link #export(Key, RangeEnd, Path, long)}, at a snapshot the caller owns. */
  SpanExport export(Snapshot snapshot, Key lo, RangeEnd hi, Path dir, long maxFileBytes) {
    if (maxFileBytes <= 0) {
      throw new IllegalArgumentException("maxFileBytes must be > 0, got " + maxFileBytes);
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StoreException("create export dir failed dir=" + dir, e);
    }
    List<Path> files = new ArrayList<>();
    long keys = 0;
    long bytes = 0;
    SstFileWriter writer = null;
    try (SpanReader.Cursor c = SpanReader.cursor(rocks.db, rocks.data, snapshot, lo, hi)) {
      long inFile = 0;
      for (c.it.seekToFirst(); c.it.isValid(); c.it.next()) {
        if (writer == null) {
          Path file = dir.resolve(String.format("span-%06d.sst", files.size()));
          writer = new SstFileWriter(rocks.envOptions, rocks.sstOptions);
          writer.open(file.toString());
          files.add(file);
          inFile = 0;
        }
        byte[] k = c.it.key();
        byte[] v = c.it.value();
        writer.put(k, v);
        keys++;
        inFile += k.length + v.length;
        if (inFile >= maxFileBytes) {
          writer.finish();
          writer.close();
          writer = null;
        }
      }
      c.check("export span lo=" + lo + " hi=" + hi);
      if (writer != null) {
        writer.finish();
      }
      for (Path f : files) {
        bytes += Files.size(f);
      }
    } catch (RocksDBException | IOException e) {
      throw new StoreException("export span failed lo=" + lo + " hi=" + hi + " dir=" + dir, e);
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    return new SpanExport(files, keys, bytes);
  }

  /** Deletes {@code [lo, hi)} (durably), then ingests the files, each checked to lie inside the span. */
  void ingest(Key lo, RangeEnd hi, List<Path> files) {
    ingest(lo, hi, files, true);
  }

  /**
   * As {@link #ingest(Key, RangeEnd, List)}; without {@code deleteFirst} (the caller knows the span holds
   * no key) no range tombstone is written, which would make RocksDB flush the memtable before the ingest.
   */
  void ingest(Key lo, RangeEnd hi, List<Path> files, boolean deleteFirst) {
    for (Path f : files) {
      checkInside(f, lo, hi);
    }
    if (deleteFirst) {
      deleteSpan(lo, hi);
    }
    if (files.isEmpty()) {
      return;
    }
    List<String> paths = files.stream().map(Path::toString).toList();
    try (IngestExternalFileOptions o = new IngestExternalFileOptions()
        .setMoveFiles(true) // hard link when possible; RocksDB falls back to a copy
        .setAllowGlobalSeqNo(true)
        .setAllowBlockingFlush(true)) {
      rocks.db.ingestExternalFile(rocks.data, paths, o);
    } catch (RocksDBException e) {
      throw new StoreException("ingest span failed lo=" + lo + " hi=" + hi + " files=" + files.size(), e);
    }
  }

  /**
   * Replaces {@code [lo, hi)} with the files' contents in ONE ingest, so a reader sees the old span or
   * the new one, never the span empty or half-replaced: a file of point deletes of every key the span
   * holds now goes first in the same {@code ingestExternalFile} call as the data files. Files that
   * overlap in one call get increasing sequence numbers in list order, so a key in both the delete file
   * and a data file keeps the data file's value. The caller keeps writes to the span out meanwhile (the
   * range's apply lock); the delete file is written to {@code scratch} and moved into the store.
   */
  void replace(Key lo, RangeEnd hi, List<Path> files, Path scratch) {
    for (Path f : files) {
      checkInside(f, lo, hi);
    }
    List<Path> all = new ArrayList<>(files.size() + 1);
    Path deletes = scratch.resolve("replace-deletes.sst");
    if (writeDeletes(lo, hi, deletes)) {
      all.add(deletes);
    }
    all.addAll(files);
    if (all.isEmpty()) {
      return;
    }
    List<String> paths = all.stream().map(Path::toString).toList();
    try (IngestExternalFileOptions o = new IngestExternalFileOptions()
        .setMoveFiles(true)
        .setAllowGlobalSeqNo(true)
        .setAllowBlockingFlush(true)) {
      rocks.db.ingestExternalFile(rocks.data, paths, o);
    } catch (RocksDBException e) {
      throw new StoreException("replace span failed lo=" + lo + " hi=" + hi + " files=" + files.size(), e);
    } finally {
      try {
        Files.deleteIfExists(deletes);
      } catch (IOException e) {
        throw new StoreException("delete file of a replace not removed file=" + deletes, e);
      }
    }
  }

  /** Writes a point delete of every key in {@code [lo, hi)} to {@code file}; false (no file) when none. */
  private boolean writeDeletes(Key lo, RangeEnd hi, Path file) {
    SstFileWriter writer = null;
    try (SpanReader.Cursor c = SpanReader.cursor(rocks.db, rocks.data, null, lo, hi)) {
      for (c.it.seekToFirst(); c.it.isValid(); c.it.next()) {
        if (writer == null) {
          Files.createDirectories(file.getParent());
          Files.deleteIfExists(file);
          writer = new SstFileWriter(rocks.envOptions, rocks.sstOptions);
          writer.open(file.toString());
        }
        writer.delete(c.it.key());
      }
      c.check("replace span lo=" + lo + " hi=" + hi);
      if (writer != null) {
        writer.finish();
      }
      return writer != null;
    } catch (RocksDBException | IOException e) {
      throw new StoreException("write the deletes of a replace failed lo=" + lo + " hi=" + hi + " file=" + file, e);
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
  }

  private void checkInside(Path file, Key lo, RangeEnd hi) {
    try (SstFileReader reader = new SstFileReader(rocks.sstOptions)) {
      reader.open(file.toString());
      try (ReadOptions ro = new ReadOptions(); SstFileReaderIterator it = reader.newIterator(ro)) {
        it.seekToFirst();
        if (!it.isValid()) {
          it.status();
          return;
        }
        Key first = Key.of(it.key());
        it.seekToLast();
        Key last = Key.of(it.key());
        it.status();
        if (first.compareTo(lo) < 0 || !hi.isAbove(last)) {
          throw new StoreException("sst file leaves the span file=" + file + " first=" + first + " last=" + last
              + " lo=" + lo + " hi=" + hi);
        }
      }
    } catch (RocksDBException e) {
      throw new StoreException("read sst file failed file=" + file, e);
    }
  }

  /** A range tombstone over {@code [lo, hi)}, written durably; compaction reclaims the space later. */
  void deleteSpan(Key lo, RangeEnd hi) {
    if (!hi.isAbove(lo)) {
      return;
    }
    Optional<byte[]> end = SpanReader.finiteEnd(rocks.db, rocks.data, lo, hi);
    if (end.isEmpty()) {
      return;
    }
    try (WriteBatch b = new WriteBatch()) {
      b.deleteRange(rocks.data, lo.toByteArray(), end.get());
      rocks.db.write(rocks.syncWrites, b);
    } catch (RocksDBException e) {
      throw new StoreException("delete span failed lo=" + lo + " hi=" + hi, e);
    }
  }

  void compact(Key lo, RangeEnd hi) {
    try {
      rocks.db.compactRange(rocks.data, lo.toByteArray(), hi.isInfinite() ? null : hi.key().toByteArray());
    } catch (RocksDBException e) {
      throw new StoreException("compact span failed lo=" + lo + " hi=" + hi, e);
    }
  }
}
