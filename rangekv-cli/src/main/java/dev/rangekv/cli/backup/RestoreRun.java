package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.cli.format.KeyFormat;
import dev.rangekv.cli.format.Table;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.backup.PrefixMove;
import dev.rangekv.core.backup.RestoreTarget;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.backup.BackupRange;
import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.IngestStagedRequest;
import dev.rangekv.proto.backup.IngestStagedResponse;
import dev.rangekv.proto.backup.StageHeader;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.IngestCommand;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One {@code restore}: splits the cluster at the restored ranges' boundaries, then range by range
 * stages the files on every replica's node (rewritten there when the keys move or the cluster's range
 * is smaller than the backed-up one) and has the range's leader propose one ingest entry, which every
 * replica applies by ingesting its staged files: the range's restored keys appear at once, at one log
 * index. The entry refuses a range holding data unless the restore overwrites.
 */
final class RestoreRun {
  private static final int MAX_ATTEMPTS = 10;
  private static final String NOT_STAGED = "restore files were not staged on node ";

  /**
   * What to restore.
   *
   * @param requested the keys restored, in the backup's keyspace
   * @param move the prefix move into the cluster's keyspace
   * @param overwrite replace ranges that hold data (else refused)
   */
  record Settings(KeySpan requested, PrefixMove move, boolean overwrite) {}

  private final MetaCalls meta;
  private final PeerChannels channels;
  private final Function<String, Destination> open;
  private final PrintWriter progress;
  private final Predicate<KeySpan> holdsData;
  private final long timeoutMillis;
  private final KeyFormat keys;
  private final String restoreId = "restore-" + System.currentTimeMillis() + "-"
      + Long.toHexString(new java.util.Random().nextLong() & 0xffffffL);

  RestoreRun(MetaCalls meta, PeerChannels channels, Function<String, Destination> open, PrintWriter progress,
      Predicate<KeySpan> holdsData, long timeoutMillis, KeyFormat keys) {
    this.keys = keys;
    this.meta = meta;
    this.channels = channels;
    this.open = open;
    this.progress = progress;
    this.holdsData = holdsData;
    this.timeoutMillis = timeoutMillis;
  }

  /** A backed-up range and where it goes. */
  private record Item(BackupRange range, RestoreTarget target) {}

  /** Restores {@code m} (verified already) from {@code dest}; returns the number of cluster ranges written. */
  int run(Destination dest, BackupManifest m, Settings s) {
    KeySpan backupSpan = Manifests.span(m);
    if (!backupSpan.covers(s.requested())) {
      throw new CliException("the backup covers " + fmt(backupSpan) + ", not all of " + fmt(s.requested())
          + ": nothing restored (a restore never writes keys its backup does not hold)");
    }
    List<Item> items = new ArrayList<>();
    for (BackupRange r : m.getRangesList()) {
      RestoreTarget.of(Manifests.span(r), backupSpan, s.requested(), s.move()).ifPresent(t -> items.add(new Item(r, t)));
    }
    if (!s.overwrite()) {
      for (Item it : items) {
        if (holdsData.test(it.target().target())) {
          throw new CliException("the cluster holds data in " + fmt(it.target().target())
              + ": nothing restored; pass --overwrite to replace it");
        }
      }
    }
    presplit(items.stream().map(i -> i.target().target()).toList());
    int written = 0;
    long bytes = 0;
    for (int i = 0; i < items.size(); i++) {
      Item it = items.get(i);
      Destination files = it.range().getBaseUri().isEmpty() ? dest : open.apply(it.range().getBaseUri());
      try {
        written += restore(it, files, s);
      } finally {
        if (files != dest) {
          files.close();
        }
      }
      bytes += it.range().getFilesList().stream().mapToLong(f -> f.getSize()).sum();
      progress.printf("[%d/%d] r%d %s restored into %s (%s read)%n", i + 1, items.size(), it.range().getRangeId(),
          fmt(it.target().source()), fmt(it.target().target()), Table.bytes(bytes));
      progress.flush();
    }
    return written;
  }

  private void presplit(List<KeySpan> targets) {
    PreSplitRequest.Builder req = PreSplitRequest.newBuilder();
    for (KeySpan t : targets) {
      if (!t.start().isEmpty()) {
        req.addSplitKeys(ProtoValues.bytes(t.start()));
      }
      if (!t.end().isInfinite()) {
        req.addSplitKeys(ProtoValues.bytes(t.end().key()));
      }
    }
    if (req.getSplitKeysCount() > 0) {
      meta.change(st -> st.preSplit(req.build()));
    }
  }

  /** Restores one item into the cluster ranges now covering its target; retries when they change. */
  private int restore(Item it, Destination files, Settings s) {
    KeySpan target = it.target().target();
    String last = "";
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      ClusterRanges cluster = ClusterRanges.read(meta);
      List<RangeDescriptorProto> covering = cluster.ranges().stream()
          .filter(d -> ClusterRanges.span(d).overlaps(target)).toList();
      if (covering.stream().anyMatch(d -> !target.covers(ClusterRanges.span(d)))) {
        presplit(List.of(target)); // merged back meanwhile (an empty range looks idle to the controller)
        last = "a range reaches beyond " + fmt(target);
        continue;
      }
      boolean all = true;
      for (RangeDescriptorProto d : covering) {
        Optional<String> retry = restoreInto(d, cluster, it, files, s);
        if (retry.isPresent()) {
          last = retry.get();
          all = false;
          break;
        }
      }
      if (all) {
        return covering.size();
      }
    }
    throw new CliException("restore of " + fmt(target) + " did not settle after " + MAX_ATTEMPTS + " attempts: " + last);
  }

  /** Stages and ingests into cluster range {@code d}; a reason to plan again, or empty when it applied. */
  private Optional<String> restoreInto(RangeDescriptorProto d, ClusterRanges cluster, Item it, Destination files,
      Settings s) {
    KeySpan span = ClusterRanges.span(d);
    PrefixMove move = s.move();
    StageHeader header = StageHeader.newBuilder()
        .setRestoreId(restoreId)
        .setRangeId(d.getRangeId())
        .addAllFiles(it.range().getFilesList())
        .setStart(ProtoValues.bytes(span.start()))
        .setEnd(ProtoValues.endBytes(span.end()))
        .setEndInfinite(span.end().isInfinite())
        .setFromPrefix(ProtoValues.bytes(move.from()))
        .setToPrefix(ProtoValues.bytes(move.to()))
        .setRewrite(!move.isIdentity() || !span.equals(Manifests.span(it.range())))
        .build();
    IngestCommand.Builder ingest = IngestCommand.newBuilder()
        .setRestoreId(restoreId)
        .setStart(header.getStart())
        .setEnd(header.getEnd())
        .setEndInfinite(header.getEndInfinite())
        .setRequireEmpty(!s.overwrite());
    for (ReplicaProto r : d.getReplicasList()) {
      try {
        StageUpload.send(channels.channel(r.getAddress()), files, header, timeoutMillis);
      } catch (StatusRuntimeException e) {
        throw new CliException("cannot stage the files of r" + it.range().getRangeId() + " on node " + r.getNodeId()
            + " (" + r.getAddress() + "): " + describe(e) + "; nothing of " + fmt(span) + " was restored", e);
      } catch (IOException e) {
        throw new CliException("cannot read the files of r" + it.range().getRangeId() + " from " + files.uri() + ": "
            + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException("interrupted", e);
      }
      ingest.addStagedNodeIds(r.getNodeId());
    }
    IngestStagedRequest req = IngestStagedRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()))
        .setIngest(ingest)
        .build();
    StatusRuntimeException failure = null;
    for (String address : cluster.addresses(d)) {
      try {
        IngestStagedResponse r = BackupServiceGrpc.newBlockingStub(channels.channel(address))
            .withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS).ingestStaged(req);
        if (r.getAppliedIndex() <= 0) {
          throw new IllegalStateException("an applied ingest entry without its index");
        }
        return Optional.empty();
      } catch (StatusRuntimeException e) {
        failure = e;
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        if (typed.isPresent() && typed.get().hasRangeMoved()) {
          return Optional.of("range r" + d.getRangeId() + " changed: " + typed.get().getMessage());
        }
        if (typed.isPresent() && typed.get().hasInvalidArgument()) {
          String msg = typed.get().getMessage();
          if (msg.contains(NOT_STAGED)) {
            return Optional.of(msg);
          }
          throw new CliException("restore into " + fmt(span) + " refused: " + msg, e);
        }
        if (typed.isPresent() && !typed.get().getDefinitelyNotApplied() && !typed.get().hasNotLeader()) {
          throw new CliException("restore into " + fmt(span) + ": outcome unknown (" + describe(e)
              + "); check the range and run the restore again with --overwrite", e);
        }
      }
    }
    return Optional.of("no replica of r" + d.getRangeId() + " took the ingest: " + (failure == null ? "" : describe(failure)));
  }

  private String fmt(KeySpan span) {
    return SpanText.format(span, keys);
  }

  private static String describe(StatusRuntimeException e) {
    return RangeKvErrors.fromThrowable(e).map(RangeKvError::getMessage)
        .orElse(e.getStatus().getCode() + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription()));
  }
}
