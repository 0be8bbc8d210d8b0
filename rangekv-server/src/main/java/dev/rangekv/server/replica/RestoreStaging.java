package dev.rangekv.server.replica;

import dev.rangekv.storage.NodeStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where a node keeps the SST files staged for a restore: {@code restores/<restoreId>/r<rangeId>/} beside
 * the store's directory. A range's directory appears complete (renamed from {@code .part}) or not at all;
 * it is deleted once the ingest entry that uses it applied, or when the restore that staged it fails
 * before proposing that entry. Kept across restarts: a replica that restarts before applying the entry
 * applies it from the same files. What an abandoned restore leaves (a killed CLI) is swept: {@code .part}
 * folders at node start, complete ones once older than {@link #EXPIRY}.
 */
public final class RestoreStaging {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RestoreStaging.class);
  private static final Pattern RESTORE_ID = Pattern.compile("[A-Za-z0-9._-]{1,80}");

  /**
   * How long a complete staging waits for its ingest entry before a sweep deletes it: far beyond a
   * restore's run (seconds per range), and long enough for a replica's node that went down between the
   * staging and the entry to come back and apply the entry from its copy.
   */
  public static final Duration EXPIRY = Duration.ofDays(7);

  /** What one {@link #sweep} deleted. */
  public record Swept(int partial, int expired, int emptyRestores) {}

  private RestoreStaging() {}

  /**
   * Deletes what abandoned restores left under {@code root}: staged range folders last modified before
   * {@code expiredBefore}; {@code .part} folders (a staging that never completed: its sender got an
   * error and proposed no entry) when {@code atStart} (no staging can be running) or expired; and
   * restore folders left empty, when {@code atStart} or expired.
   */
  public static Swept sweep(Path root, Instant expiredBefore, boolean atStart) throws IOException {
    if (!Files.isDirectory(root)) {
      return new Swept(0, 0, 0);
    }
    int partial = 0;
    int expired = 0;
    int empty = 0;
    for (Path restore : list(root)) {
      if (!Files.isDirectory(restore)) {
        continue;
      }
      try {
        // read before its children go: deleting them touches the folder
        boolean restoreOld = Files.getLastModifiedTime(restore).toInstant().isBefore(expiredBefore);
        for (Path range : list(restore)) {
          Optional<Boolean> old = olderThan(range, expiredBefore);
          boolean part = range.getFileName().toString().endsWith(".part");
          if (old.isEmpty()) {
            continue; // gone since the listing: a staging running beside this sweep completed or failed
          }
          if (part && (atStart || old.get())) {
            deleteTree(range);
            partial++;
          } else if (!part && old.get()) {
            deleteTree(range);
            expired++;
          }
        }
        if ((atStart || restoreOld) && list(restore).isEmpty()) {
          Files.deleteIfExists(restore);
          empty++;
        }
      } catch (NoSuchFileException e) {
        // the restore's folder went since the listing (another sweep): nothing left to sweep there
      }
    }
    return new Swept(partial, expired, empty);
  }

  /**
   * Whether {@code path} was last modified before {@code instant}; empty when it no longer exists. A
   * sweep runs as each staging starts, beside other stagings of the node that rename their
   * {@code .part} folder into place or delete it: a folder listed a moment ago may be gone.
   */
  private static Optional<Boolean> olderThan(Path path, Instant instant) throws IOException {
    try {
      return Optional.of(Files.getLastModifiedTime(path).toInstant().isBefore(instant));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** The node-start sweep of {@code store}'s restores folder; logs what it deleted, never fails the start. */
  public static void sweepAtStart(NodeStore store) {
    try {
      Swept s = sweep(root(store), Instant.now().minus(EXPIRY), true);
      if (s.partial() + s.expired() + s.emptyRestores() > 0) {
        log.info("abandoned restore staging deleted partial={} expired={} emptyRestores={}", s.partial(), s.expired(),
            s.emptyRestores());
      }
    } catch (IOException e) {
      log.warn("could not sweep abandoned restore staging dir={} error={}", root(store), e.toString());
    }
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

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

  /**
   * Deletes {@code dir}. Its restore's folder stays even when empty: another range of the restore may be
   * creating its staging inside it at this moment ({@link #sweep} removes empty ones).
   */
  public static void delete(Path dir) throws IOException {
    deleteTree(dir);
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
