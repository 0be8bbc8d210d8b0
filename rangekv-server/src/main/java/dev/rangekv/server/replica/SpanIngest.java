package dev.rangekv.server.replica;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.WriteBatchBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a restore's ingest entry on one replica: the checks are functions of the entry, the descriptor
 * and the range's data, which every replica has alike at this index, so every replica refuses or
 * ingests alike. The staged files are ingested as a replica move ingests its span, in one RocksDB ingest
 * (with overwrite, the deletes of the old keys ride in the same ingest): readers see the old span or the
 * new one, never the span empty. They are deleted only after the entry's applied index is written,
 * so a replica that crashes in between applies the entry again from the same files. The restore id of
 * the last ingest applied is kept in the range's local field {@value #INGESTED_FIELD}, written with the
 * entry's applied index: a second entry of the same restore (a proposal sent again after a leader change
 * left its outcome unknown) applies as a no-op. Without it, every replica would look for its deleted
 * staged files, wait for a peer to serve the span, and hold the range's apply.
 */
public final class SpanIngest {
  private static final Logger log = LoggerFactory.getLogger(SpanIngest.class);

  /** The start of the refusal when a replica's node has no staged copy (the range moved meanwhile). */
  public static final String NOT_STAGED = "restore files were not staged on node ";

  /** Local-state field of a range: the restore id of the last ingest entry it applied (UTF-8). */
  static final String INGESTED_FIELD = "ingested";

  private SpanIngest() {}

  /** True when {@code ingest}'s restore already ingested into range {@code rangeId} here. */
  public static boolean repeated(NodeStore store, long rangeId, IngestCommand ingest) {
    return store.localGet(rangeId, INGESTED_FIELD)
        .map(b -> new String(b, StandardCharsets.UTF_8).equals(ingest.getRestoreId()))
        .orElse(false);
  }

  /** Records, into the batch that writes the entry's applied index, that {@code ingest} applied. */
  public static void recordApplied(long rangeId, IngestCommand ingest, WriteBatchBuilder batch) {
    batch.localPut(rangeId, INGESTED_FIELD, ingest.getRestoreId().getBytes(StandardCharsets.UTF_8));
  }

  /** Why {@code ingest} must not apply to {@code d}; empty when it may. */
  public static Optional<String> refuse(NodeStore store, RangeDescriptor d, IngestCommand ingest) {
    Key start = ProtoValues.key(ingest.getStart());
    RangeEnd end = ProtoValues.end(ingest.getEnd(), ingest.getEndInfinite());
    if (!d.start().equals(start) || !d.end().equals(end)) {
      return Optional.of("restore span [" + start + ", " + end + ") is not the span of " + d);
    }
    Set<String> staged = new HashSet<>(ingest.getStagedNodeIdsList());
    for (String nodeId : d.replicas()) {
      if (!staged.contains(nodeId)) {
        return Optional.of(NOT_STAGED + nodeId + " of " + d);
      }
    }
    if (ingest.getRequireEmpty() && !store.scan(start, end, 1, false).isEmpty()) {
      return Optional.of("range " + d.rangeId() + " holds data: restore refused without overwrite");
    }
    return Optional.empty();
  }

  /** True when {@code ingest} applies to {@code d} but this node has no staged copy of its files. */
  public static boolean missingHere(NodeStore store, RangeDescriptor d, IngestCommand ingest) {
    return refuse(store, d, ingest).isEmpty()
        && !Files.isDirectory(RestoreStaging.dir(store, ingest.getRestoreId(), d.rangeId()));
  }

  /**
   * Ingests the staged files of {@code ingest} into the range; the result names the range. Call with
   * the range's apply lock held, then {@link #applied} once the entry's applied index is written.
   */
  public static CommandResult apply(NodeStore store, RangeDescriptor d, IngestCommand ingest, long index) {
    Optional<String> refused = refuse(store, d, ingest);
    if (refused.isPresent()) {
      return CommandResult.newBuilder()
          .setError(RangeKvErrors.invalidArgument("ingest", refused.get()))
          .setAppliedIndex(index)
          .build();
    }
    Path dir = RestoreStaging.dir(store, ingest.getRestoreId(), d.rangeId());
    if (!Files.isDirectory(dir)) {
      // staging completed on every replica's node before the entry was proposed (staged_node_ids)
      throw new IllegalStateException("restore files staged on this node are missing dir=" + dir
          + " rangeId=" + d.rangeId() + " index=" + index);
    }
    try {
      List<Path> files = RestoreStaging.files(dir);
      if (ingest.getRequireEmpty()) {
        store.ingestIntoEmptySpan(d.start(), d.end(), files); // refuse() saw the span empty at this index
      } else {
        store.replaceSpan(d.start(), d.end(), files, dir); // one ingest: old or new, never empty
      }
      log.info("restore ingested rangeId={} restoreId={} files={} index={}", d.rangeId(), ingest.getRestoreId(),
          files.size(), index);
    } catch (IOException e) {
      throw new UncheckedIOException("listing staged restore files dir=" + dir, e);
    }
    return CommandResult.newBuilder().setAppliedIndex(index).build();
  }

  /** After the entry's applied index is written: the staged files are no longer needed. */
  public static void applied(NodeStore store, IngestCommand ingest, long rangeId) {
    try {
      RestoreStaging.delete(RestoreStaging.dir(store, ingest.getRestoreId(), rangeId));
    } catch (IOException | IllegalArgumentException e) {
      log.warn("could not delete staged restore files rangeId={} restoreId={} error={}", rangeId,
          ingest.getRestoreId(), e.toString());
    }
  }
}
