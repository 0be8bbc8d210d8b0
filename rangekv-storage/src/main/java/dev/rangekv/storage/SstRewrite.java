package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.nio.file.Path;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;
import org.rocksdb.SstFileWriter;

/**
 * Copies an SST file of user data into a new one, keeping only the entries that land inside a span after
 * an optional key prefix rewrite (a restore into a smaller range, or under another prefix). A rewrite
 * keeps key order only when it maps a whole prefix to another prefix, which is the only rewrite asked
 * for: keys outside {@code from} are kept as they are.
 */
final class SstRewrite {
  private SstRewrite() {}

  /** The number of entries written to {@code out}; no file is left at {@code out} when that is 0. */
  static long copy(RocksHandles rocks, Path in, Path out, Key lo, RangeEnd hi, Key from, Key to) {
    long kept = 0;
    SstFileWriter writer = null;
    try (SstFileReader reader = new SstFileReader(rocks.sstOptions)) {
      reader.open(in.toString());
      try (ReadOptions ro = new ReadOptions(); SstFileReaderIterator it = reader.newIterator(ro)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          Key k = Key.of(it.key());
          if (!from.equals(to) && k.startsWith(from)) {
            k = to.concat(Key.of(it.key(), from.size(), k.size() - from.size()));
          }
          if (k.compareTo(lo) < 0 || !hi.isAbove(k)) {
            continue;
          }
          if (writer == null) {
            writer = new SstFileWriter(rocks.envOptions, rocks.sstOptions);
            writer.open(out.toString());
          }
          writer.put(k.toByteArray(), it.value());
          kept++;
        }
        it.status();
      }
      if (writer != null) {
        writer.finish();
      }
    } catch (RocksDBException e) {
      throw new StoreException("rewrite sst file failed file=" + in, e);
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    return kept;
  }
}
