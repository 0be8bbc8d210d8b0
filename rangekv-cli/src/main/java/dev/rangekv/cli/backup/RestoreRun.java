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
import dev.rangekv.proto.backup.DiscardStagedRequest;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One {@code restore}: splits the cluster at the restored ranges' boundaries, then a few ranges at a
 * time stages the files on every replica's node (in parallel) (rewritten there when the keys move or the cluster's range
 * is smaller than the backed-up one) and has the range's leader propose one ingest entry, which every
 * replica applies by ingesting its staged files: the range's restored keys appear at once, at one log
 * index. The entry refuses a range holding data unless the restore overwrites.
 */
final class RestoreRun {
  private static final int MAX_ATTEMPTS = 10;
  /**
   * How often one staged item's ingest is asked again while its range answers UNAVAILABLE (waking) or
   * an answer left its outcome unknown (a range applies one restore's ingest once, so asking again is safe).
   */
  private static final int INGEST_ROUNDS = 5;
  private static final long INGEST_PAUSE_MILLIS = 200;
  private static final String NOT_STAGED = "restore files were not staged on node ";
  /** Items restored at once: a range's staging and ingest wait on disks and Raft rounds more than on CPU. */
  static final int PARALLEL_RANGES = 4;

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
  private final ExecutorService stagers = Executors.newCachedThreadPool(daemon("restore-stage"));
  private long presplitNanos;

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
    long t0 = System.nanoTime();
    presplit(items.stream().map(i -> i.target().target()).toList());
    presplitNanos = System.nanoTime() - t0;
    ExecutorService ranges = Executors.newFixedThreadPool(PARALLEL_RANGES, daemon("restore-range"));
    try {
      return restoreAll(items, dest, s, ranges);
    } finally {
      ranges.shutdownNow();
      stagers.shutdownNow();
    }
  }

  /** Seconds spent pre-splitting, in the last {@link #run}. */
  double presplitSeconds() {
    return presplitNanos / 1e9;
  }

  /**
   * Restores {@link #PARALLEL_RANGES} items at a time (each is all or nothing on its own: one ingest
   * entry per cluster range); the first failure stops new items from starting and is thrown once the
   * items in flight have ended, so no staging is left running behind the error.
   */
  private int restoreAll(List<Item> items, Destination dest, Settings s, ExecutorService ranges) {
    AtomicInteger finished = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    List<Future<Integer>> futures = new ArrayList<>();
    for (Item it : items) {
      futures.add(ranges.submit(() -> {
        if (failure.get() != null) {
          return 0;
        }
        try {
          int n = restoreItem(it, dest, s);
          long total = bytes.addAndGet(it.range().getFilesList().stream().mapToLong(f -> f.getSize()).sum());
          synchronized (progress) {
            progress.printf("[%d/%d] r%d %s restored into %s (%s read)%n", finished.incrementAndGet(), items.size(),
                it.range().getRangeId(), fmt(it.target().source()), fmt(it.target().target()), Table.bytes(total));
            progress.flush();
          }
          return n;
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
          throw e;
        }
      }));
    }
    int written = 0;
    for (Future<Integer> f : futures) {
      try {
        written += f.get();
      } catch (ExecutionException e) {
        // the first failure is thrown below, after every item in flight has ended
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException("interrupted", e);
      }
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    return written;
  }

  private int restoreItem(Item it, Destination dest, Settings s) {
    Destination files = it.range().getBaseUri().isEmpty() ? dest : open.apply(it.range().getBaseUri());
    try {
      return restore(it, files, s);
    } finally {
      if (files != dest) {
        files.close();
      }
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
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
    // every replica's node at once: each upload reads the files itself, so one slow node only delays its own
    List<Future<?>> uploads = new ArrayList<>();
    for (ReplicaProto r : d.getReplicasList()) {
      uploads.add(stagers.submit(() -> {
        StageUpload.send(channels.channel(r.getAddress()), files, header, timeoutMillis);
        return null;
      }));
    }
    // every upload ends (staged or failed) before a failure discards: none can complete behind the discard
    CliException failed = null;
    for (int i = 0; i < uploads.size(); i++) {
      ReplicaProto r = d.getReplicas(i);
      try {
        uploads.get(i).get();
        ingest.addStagedNodeIds(r.getNodeId());
      } catch (ExecutionException e) {
        if (failed == null) {
          failed = stagingFailure(e.getCause(), r, it, files, span);
        }
      } catch (InterruptedException e) {
        uploads.forEach(u -> u.cancel(true));
        Thread.currentThread().interrupt();
        throw new CliException("interrupted", e);
      }
    }
    if (failed != null) {
      discard(d);
      throw failed;
    }
    IngestStagedRequest req = IngestStagedRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()))
        .setIngest(ingest)
        .build();
    StatusRuntimeException failure = null;
    StatusRuntimeException unknown = null;
    for (int round = 0; round < INGEST_ROUNDS; round++) {
      boolean again = false;
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
          boolean ambiguous = typed.isPresent() && !typed.get().getDefinitelyNotApplied() && !typed.get().hasNotLeader();
          if (ambiguous) {
            unknown = e;
          }
          // a dormant range (a pre-split's are born so) answers UNAVAILABLE while it wakes; an entry whose
          // outcome is unknown may be proposed again, since a range applies one restore's ingest once
          again |= ambiguous || typed.isPresent() && typed.get().hasUnavailable();
        }
      }
      if (!again || round == INGEST_ROUNDS - 1) {
        break;
      }
      // the files stay staged, so only the ingest is asked again, once a leader had time to settle
      pause(round);
    }
    if (unknown != null) {
      throw new CliException("restore into " + fmt(span) + ": outcome unknown (" + describe(unknown)
          + "); check the range and run the restore again with --overwrite", unknown);
    }
    return Optional.of("no replica of r" + d.getRangeId() + " took the ingest: " + (failure == null ? "" : describe(failure)));
  }

  private static void pause(int round) {
    try {
      Thread.sleep(INGEST_PAUSE_MILLIS * (round + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    }
  }

  private CliException stagingFailure(Throwable cause, ReplicaProto r, Item it, Destination files, KeySpan span) {
    if (cause instanceof StatusRuntimeException sre) {
      return new CliException("cannot stage the files of r" + it.range().getRangeId() + " on node " + r.getNodeId()
          + " (" + r.getAddress() + "): " + describe(sre) + "; nothing of " + fmt(span) + " was restored", sre);
    }
    if (cause instanceof IOException io) {
      return new CliException("cannot read the files of r" + it.range().getRangeId() + " from " + files.uri() + ": "
          + io.getMessage(), io);
    }
    return new CliException("cannot stage the files of r" + it.range().getRangeId() + " on node " + r.getNodeId()
        + ": " + cause + "; nothing of " + fmt(span) + " was restored", cause);
  }

  /**
   * Best effort: deletes this restore's staged files of range {@code d} on every replica's node, after
   * a staging failed and before any ingest entry was proposed (an unreachable node sweeps its own at
   * its next start).
   */
  private void discard(RangeDescriptorProto d) {
    DiscardStagedRequest req = DiscardStagedRequest.newBuilder().setRestoreId(restoreId).setRangeId(d.getRangeId()).build();
    for (ReplicaProto r : d.getReplicasList()) {
      try {
        BackupServiceGrpc.newBlockingStub(channels.channel(r.getAddress()))
            .withDeadlineAfter(5, TimeUnit.SECONDS).discardStaged(req);
      } catch (StatusRuntimeException e) {
        // the node is down or refused: its sweep deletes the files
      }
    }
  }

  private String fmt(KeySpan span) {
    return SpanText.format(span, keys);
  }

  private static String describe(StatusRuntimeException e) {
    return RangeKvErrors.fromThrowable(e).map(RangeKvError::getMessage)
        .orElse(e.getStatus().getCode() + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription()));
  }
}
