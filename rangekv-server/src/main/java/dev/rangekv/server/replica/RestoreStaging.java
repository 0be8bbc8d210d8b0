package dev.rangekv.server.replica;

import dev.rangekv.storage.NodeStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where a node keeps the SST files staged for a restore: {@code restores/<restoreId>/r<rangeId>/} beside
 * the store's directory. A range's directory appears complete (renamed from {@code .part}) or not at all;
 * it is deleted once the ingest entry that uses it applied. Kept across restarts: a replica that restarts
 * before applying the entry applies it from the same files.
 */
public final class RestoreStaging {
  private static final Pattern RESTORE_ID = Pattern.compile("[A-Za-z0-9._-]{1,80}");

  private RestoreStaging() {}

  /** The staged files' directory of {@code rangeId} in restore {@code restoreId} on {@code store}'s node. */
  public static Path dir(NodeStore store, String restoreId, long rangeId) {
    if (!RESTORE_ID.matcher(restoreId).matches() || restoreId.startsWith(".")) {
      throw new IllegalArgumentException("restore id must be 1-80 of [A-Za-z0-9._-], got '" + restoreId + "'");
    }
    return root(store).resolve(restoreId).resolve("r" + rangeId);
  }

  public static Path root(NodeStore store) {
    return store.dataDir().resolveSibling("restores");
  }

  /** The staged SST files of a complete staging, in name (key) order. */
  public static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".sst")).sorted().toList();
    }
  }

  /** Deletes {@code dir} and, when that leaves it empty, its restore's directory. */
  public static void delete(Path dir) throws IOException {
    deleteTree(dir);
    Path restore = dir.getParent();
    try (Stream<Path> s = Files.list(restore)) {
      if (s.findAny().isEmpty()) {
        Files.deleteIfExists(restore);
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // another range of the restore removed it
    }
  }

  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
