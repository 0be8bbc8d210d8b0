package dev.rangekv.bench.multiraft;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * After a crash: opens each node's store read-only and counts, for every acknowledged key, the nodes
 * holding it either as a log entry or as applied data. An acknowledged key held by fewer than a
 * majority is lost.
 */
public final class SafetyCheck {
  private SafetyCheck() {}

  /** The acknowledged keys found on fewer than a majority of the {@code nodes} stores under {@code dir}. */
  public static Set<String> lostOnMajority(Path dir, int nodes, Set<String> acknowledged) throws RocksDBException {
    Map<String, Integer> holders = new HashMap<>();
    for (int n = 0; n < nodes; n++) {
      for (String key : keysOf(dir.resolve("node-" + n))) {
        holders.merge(key, 1, Integer::sum);
      }
    }
    Set<String> lost = new HashSet<>();
    for (String key : acknowledged) {
      if (holders.getOrDefault(key, 0) <= nodes / 2) {
        lost.add(key);
      }
    }
    return lost;
  }

  private static Set<String> keysOf(Path nodeDir) throws RocksDBException {
    Set<String> keys = new HashSet<>();
    try (Options options = new Options();
        RocksDB db = RocksDB.openReadOnly(options, nodeDir.toString());
        RocksIterator it = db.newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        byte[] k = it.key();
        if (k[0] == LogCodec.DATA) {
          keys.add(new String(LogCodec.userKey(k), StandardCharsets.US_ASCII));
        } else if (k[0] == LogCodec.LOG) {
          LogCodec.decodePutKey(it.value()).ifPresent(key -> keys.add(new String(key, StandardCharsets.US_ASCII)));
        }
      }
    }
    return keys;
  }

  static List<String> sample(Set<String> keys) {
    return keys.stream().sorted().limit(5).toList();
  }
}
