package dev.rangekv.server.consensus;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.replica.StagedSpan;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.SpanExport;
import dev.rangekv.storage.StoreSnapshot;
import dev.rangekv.storage.WriteBatchBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A range's span snapshot taken from one {@link FakeNodes} node's store and installed into another's,
 * as the span transfer does between processes (the sender's export at one applied point, the
 * receiver's install with the sender's local fields and range state), without the stream between them.
 */
final class InProcessSpan implements StagedSpan {
  private static final AtomicLong ids = new AtomicLong();
  private static final long SST_FILE_BYTES = 8 << 20;

  private record Point(RangeLocalState state, List<Map.Entry<String, byte[]>> fields, StoreSnapshot snapshot) {}

  private final NodeStore to;
  private final ReplicaDirectory toDirectory;
  private final RangeLocalState state;
  private final long appliedTerm;
  private final List<Map.Entry<String, byte[]>> fields;
  private final SpanExport export;
  private final Path dir;

  private InProcessSpan(NodeStore to, ReplicaDirectory toDirectory, RangeLocalState state, long appliedTerm,
      List<Map.Entry<String, byte[]>> fields, SpanExport export, Path dir) {
    this.to = to;
    this.toDirectory = toDirectory;
    this.state = state;
    this.appliedTerm = appliedTerm;
    this.fields = List.copyOf(fields);
    this.export = export;
    this.dir = dir;
  }

  /** Exports {@code replica}'s span from {@code from} under {@code workDir}, to be installed into {@code to}. */
  static InProcessSpan take(RangeReplica replica, NodeStore from, NodeStore to, ReplicaDirectory toDirectory,
      Path workDir) {
    long rangeId = replica.rangeId();
    Point point = replica.atAppliedPoint(() -> new Point(
        from.rangeState(rangeId).orElseThrow(() -> new IllegalStateException("no stored state rangeId=" + rangeId)),
        from.localScan(rangeId, ""), from.snapshot()));
    Path dir = workDir.resolve("span-" + rangeId + "-" + ids.incrementAndGet());
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    SpanExport export;
    try (StoreSnapshot snapshot = point.snapshot()) {
      RangeDescriptor d = point.state().descriptor();
      export = from.exportSpan(snapshot, d.start(), d.end(), dir, SST_FILE_BYTES);
    }
    long term = point.state().appliedTerm() != 0 ? point.state().appliedTerm()
        : replica.logTermAt(point.state().appliedIndex()).orElse(0);
    return new InProcessSpan(to, toDirectory, point.state(), term, point.fields(), export, dir);
  }

  @Override
  public long appliedTerm() {
    return appliedTerm;
  }

  @Override
  public long appliedIndex() {
    return state.appliedIndex();
  }

  @Override
  public void install() {
    try {
      RangeDescriptor d = state.descriptor();
      to.deleteRangeLocalState(d.rangeId());
      if (!fields.isEmpty()) {
        try (WriteBatchBuilder batch = to.newBatch()) {
          fields.forEach(f -> batch.localPut(d.rangeId(), f.getKey(), f.getValue()));
          to.write(batch);
        }
      }
      to.ingestSpan(d.start(), d.end(), export.files(), new RangeLocalState(d, appliedTerm, state.appliedIndex()));
      toDirectory.holdsAgain(d.rangeId());
      toDirectory.replicaRecord(d.rangeId());
    } finally {
      discard();
    }
  }

  @Override
  public void discard() {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
