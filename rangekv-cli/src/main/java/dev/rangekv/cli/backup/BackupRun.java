package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.cli.format.Table;
import dev.rangekv.core.backup.Coverage;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.backup.ResumePlan;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.backup.BackupRange;
import dev.rangekv.proto.convert.ProtoValues;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * One {@code backup create}: exports every range of the span, one after another, rewriting the manifest
 * (incomplete) after each, and marks it finished once the ranges tile the span. A run that finds an
 * incomplete manifest of the same span resumes it: ranges already written whose files still check are
 * kept, the rest exported ({@link ResumePlan}). The cluster may split or merge ranges meanwhile: the run
 * plans again from a fresh range map until the written ranges tile the span.
 */
final class BackupRun {
  /** Rounds of planning before giving up on a cluster whose ranges keep changing under the run. */
  private static final int MAX_ROUNDS = 20;
  /**
   * How many ranges ahead of the export a range is woken. Waking a dormant range takes an election (about
   * a second on 3 nodes), which one range's export at a time would wait for range after range.
   */
  static final int WAKE_AHEAD = 8;

  /**
   * What to back up and how.
   *
   * @param span the keys backed up
   * @param clusterId the cluster's id, recorded in the manifest
   * @param version this RangeKV's version, recorded in the manifest
   * @param base the base backup of an incremental one
   */
  record Settings(KeySpan span, String clusterId, String version, Optional<Base> base) {}

  /** A base backup: a range whose applied point is unchanged is recorded with the base's files. */
  record Base(String uri, BackupManifest manifest) {}

  private final MetaCalls meta;
  private final RangeExport export;
  private final Destination dest;
  private final PrintWriter progress;
  private final LongSupplier clock;
  private final dev.rangekv.cli.format.KeyFormat keys;

  BackupRun(MetaCalls meta, RangeExport export, Destination dest, PrintWriter progress, LongSupplier clock,
      dev.rangekv.cli.format.KeyFormat keys) {
    this.keys = keys;
    this.meta = meta;
    this.export = export;
    this.dest = dest;
    this.progress = progress;
    this.clock = clock;
  }

  BackupManifest run(Settings s) {
    long t0 = clock.getAsLong();
    BackupManifest.Builder m = start(s);
    List<BackupRange> done = new ArrayList<>(m.getRangesList());
    long bytes = 0;
    int round = 0;
    while (Coverage.check(Manifests.spans(done), s.span()).isPresent()) {
      if (++round > MAX_ROUNDS) {
        throw new CliException("the cluster's ranges kept changing during the backup; run it again to resume");
      }
      ClusterRanges cluster = ClusterRanges.read(meta);
      ResumePlan plan = ResumePlan.of(Manifests.spans(done), cluster.spans(), s.span());
      List<BackupRange> kept = new ArrayList<>(plan.keep().stream().map(done::get).toList());
      int n = 0;
      List<Integer> order = plan.export();
      for (int j = 0; j < order.size(); j++) {
        // the ranges WAKE_AHEAD places on are woken now: a dormant one elects while earlier ones export
        for (int k = j == 0 ? 1 : j + WAKE_AHEAD; k <= j + WAKE_AHEAD && k < order.size(); k++) {
          export.wake(cluster.ranges().get(order.get(k)));
        }
        RangeDescriptorProto d = cluster.ranges().get(order.get(j));
        BackupRange exported;
        try {
          exported = export.export(d, cluster.addresses(d), written -> reusable(s, written));
        } catch (CliException e) {
          if (round == MAX_ROUNDS || !(e.getCause() instanceof io.grpc.StatusRuntimeException)) {
            throw e;
          }
          // a node died or the range moved: plan again from a fresh map once the cluster had a moment
          progress.printf("r%d: %s; planning again%n", d.getRangeId(), e.getMessage());
          progress.flush();
          pause(round);
          break;
        }
        BackupRange r = exported.getFilesCount() == 0
            ? s.base().flatMap(b -> baseCopy(b, exported)).orElse(exported) : exported;
        kept.removeIf(k -> Manifests.span(k).overlaps(Manifests.span(r)));
        kept.add(r);
        kept.sort(Comparator.comparing(k -> ProtoValues.key(k.getStart())));
        m.clearRanges().addAllRanges(kept);
        Manifests.write(dest, m.build());
        long size = r.getFilesList().stream().mapToLong(f -> f.getSize()).sum();
        bytes += r.getBaseUri().isEmpty() ? size : 0;
        n++;
        double secs = Math.max(1, clock.getAsLong() - t0) / 1000.0;
        progress.printf("[%d/%d] r%d %s %s at applied index %d%s (%s written, %s/s)%n", n, plan.export().size(),
            r.getRangeId(), SpanText.format(Manifests.span(r), keys), Table.bytes(size), r.getAppliedIndex(),
            r.getBaseUri().isEmpty() ? "" : ", unchanged since the base", Table.bytes(bytes),
            Table.bytes((long) (bytes / secs)));
        progress.flush();
      }
      done = kept;
    }
    m.clearRanges().addAllRanges(done).setFinishedAtMillis(clock.getAsLong());
    BackupManifest finished = m.build();
    Manifests.write(dest, finished);
    return finished;
  }

  /** Backs off before the next round: a new leader is elected within an election timeout or two. */
  private static void pause(int round) {
    try {
      Thread.sleep(Math.min(5_000, 250L * round));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    }
  }

  /** The manifest to continue: a new one, or the incomplete one of the same span at the destination. */
  private BackupManifest.Builder start(Settings s) {
    Optional<BackupManifest> existing = Manifests.read(dest);
    if (existing.isEmpty()) {
      BackupManifest.Builder m = BackupManifest.newBuilder()
          .setFormat(Manifests.FORMAT)
          .setBackupId(java.util.UUID.randomUUID().toString())
          .setClusterId(s.clusterId())
          .setVersion(s.version())
          .setSpanStart(ProtoValues.bytes(s.span().start()))
          .setSpanEnd(ProtoValues.endBytes(s.span().end()))
          .setSpanEndInfinite(s.span().end().isInfinite())
          .setStartedAtMillis(clock.getAsLong());
      s.base().ifPresent(b -> m.setIncrementalFrom(b.uri()));
      Manifests.write(dest, m.build());
      return m;
    }
    BackupManifest m = existing.get();
    if (Manifests.complete(m)) {
      throw new CliException("a finished backup is already at " + dest.uri() + "; back up to a new location");
    }
    if (!Manifests.span(m).equals(s.span()) || !m.getClusterId().equals(s.clusterId())
        || !m.getIncrementalFrom().equals(s.base().map(Base::uri).orElse(""))) {
      throw new CliException("an unfinished backup of span " + SpanText.format(Manifests.span(m), keys) + " (cluster '" + m.getClusterId()
          + "', base '" + m.getIncrementalFrom() + "') is at " + dest.uri() + "; resume it with the same options");
    }
    List<BackupRange> intact = new ArrayList<>();
    for (BackupRange r : m.getRangesList()) {
      boolean ok = r.getBaseUri().isEmpty() && r.getFilesList().stream().allMatch(f -> FileCheck.problem(dest, f).isEmpty());
      if (ok || !r.getBaseUri().isEmpty()) {
        intact.add(r);
      }
    }
    progress.printf("resuming the backup at %s: %d of its ranges already written%n", dest.uri(), intact.size());
    return m.toBuilder().clearRanges().addAllRanges(intact);
  }

  /** True when the base backup holds range {@code r} at the same applied point: its files serve again. */
  private static boolean reusable(Settings s, BackupRange r) {
    return s.base().flatMap(b -> baseCopy(b, r)).isPresent();
  }

  private static Optional<BackupRange> baseCopy(Base b, BackupRange r) {
    for (BackupRange old : b.manifest().getRangesList()) {
      if (old.getRangeId() == r.getRangeId() && old.getGeneration() == r.getGeneration()
          && old.getAppliedIndex() == r.getAppliedIndex() && old.getAppliedTerm() == r.getAppliedTerm()) {
        String uri = old.getBaseUri().isEmpty() ? b.uri() : old.getBaseUri();
        return Optional.of(r.toBuilder().clearFiles().addAllFiles(old.getFilesList()).setBaseUri(uri).build());
      }
    }
    return Optional.empty();
  }
}
