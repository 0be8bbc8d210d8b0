package dev.rangekv.cli.backup;

import dev.rangekv.core.backup.Coverage;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.backup.BackupRange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Checks a backup: finished, ranges in key order tiling its span (no gap, no overlap), and every file
 * read back with the size and SHA-256 the manifest lists (files of unchanged ranges at their base).
 */
final class BackupVerify {
  /**
   * What a verify found.
   *
   * @param problems one line each, the file or range named; empty when the backup is good
   * @param files the files read back
   * @param bytes their total size
   */
  record Report(List<String> problems, int files, long bytes) {
    Report {
      problems = List.copyOf(problems);
    }

    boolean ok() {
      return problems.isEmpty();
    }
  }

  private BackupVerify() {}

  /** Verifies {@code m} at {@code dest}; {@code open} opens a base backup's destination by URI. */
  static Report run(Destination dest, BackupManifest m, Function<String, Destination> open) {
    List<String> problems = new ArrayList<>();
    if (!Manifests.complete(m)) {
      problems.add("incomplete: the backup run did not finish (" + m.getRangesCount()
          + " ranges written); run backup create again with the same options to resume it");
    }
    Coverage.check(Manifests.spans(m.getRangesList()), Manifests.span(m))
        .ifPresent(p -> problems.add("ranges do not cover the span " + Manifests.span(m) + ": " + p.describe()));
    Map<String, Destination> bases = new HashMap<>();
    int files = 0;
    long bytes = 0;
    try {
      for (BackupRange r : m.getRangesList()) {
        Destination at = r.getBaseUri().isEmpty() ? dest : bases.computeIfAbsent(r.getBaseUri(), open);
        for (BackupFile f : r.getFilesList()) {
          files++;
          bytes += f.getSize();
          FileCheck.problem(at, f).ifPresent(p -> problems.add(p + (at == dest ? "" : " (in the base " + at.uri() + ")")));
        }
      }
    } finally {
      bases.values().forEach(Destination::close);
    }
    return new Report(problems, files, bytes);
  }
}
