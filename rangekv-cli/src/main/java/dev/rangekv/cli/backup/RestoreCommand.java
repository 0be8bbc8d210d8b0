package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.backup.PrefixMove;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.server.raft.PeerChannels;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rangekv restore --from URI [--span PREFIX | --start K --end K] [--into-prefix P] [--overwrite]}:
 * verifies the backup, then restores it into the running cluster range by range.
 */
@Command(name = "restore", mixinStandardHelpOptions = true,
    description = "Restore a backup (or a span of it) into the running cluster; refuses spans holding data unless --overwrite.")
public final class RestoreCommand extends ClusterCommand {
  @picocli.CommandLine.Mixin
  S3Options s3 = new S3Options();

  @Option(names = "--from", required = true, paramLabel = "URI", description = "the backup: file:///dir or s3://bucket/prefix")
  String from;

  @ArgGroup(exclusive = false)
  SpanOptions span;

  @Option(names = "--into-prefix", paramLabel = "P",
      description = "restore the keys of --span PREFIX under P instead (PREFIX + x becomes P + x)")
  String intoPrefix;

  @Option(names = "--overwrite", description = "replace what the cluster holds in the restored spans")
  boolean overwrite;

  @Override
  protected void execute(List<String> addresses) {
    Optional<KeySpan> requested;
    PrefixMove move = PrefixMove.NONE;
    try {
      requested = SpanText.parse(span, keys());
      if (intoPrefix != null) {
        if (span == null || span.prefix == null) {
          throw new IllegalArgumentException("--into-prefix needs --span PREFIX (the prefix it replaces)");
        }
        move = new PrefixMove(Key.of(keys().parse(span.prefix)), Key.of(keys().parse(intoPrefix)));
      }
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage(), e);
    }
    PeerChannels channels = PeerChannels.forCommand(64 << 20,
        options.tls().map(dev.rangekv.client.routing.NodeChannels::clientContext));
    try (MetaCalls meta = new MetaCalls(addresses, options.timeout(), options.tls());
        KvSession kv = KvSession.open(addresses, options.timeout(), options.tls());
        Destination dest = Destinations.open(from, s3.settings())) {
      long t0 = System.nanoTime();
      BackupManifest m = Manifests.require(dest);
      BackupVerify.Report report = BackupVerify.run(dest, m, u -> Destinations.open(u, s3.settings()));
      if (!report.ok()) {
        throw new CliException("backup at " + from + " failed verification, nothing restored: " + report.problems().get(0));
      }
      double verifySecs = (System.nanoTime() - t0) / 1e9;
      out().println("verified " + report.files() + " files of backup " + m.getBackupId());
      RestoreRun run = new RestoreRun(meta, channels, u -> Destinations.open(u, s3.settings()), out(),
          s -> kv.run(c -> c.scan(s.start(), s.end(), ScanOptions.defaults().withLimit(1)).hasNext()),
          Math.max(60_000, options.timeout().toMillis()), keys());
      KeySpan keys = requested.orElse(Manifests.span(m));
      int ranges = run.run(dest, m, new RestoreRun.Settings(keys, move, overwrite));
      out().println("-- restored " + SpanText.format(keys, keys()) + (move.isIdentity() ? ""
          : " into " + SpanText.format(move.apply(keys), keys())) + ": " + ranges + " ranges in "
          + String.format("%.1f s (verify %.1f s, pre-split %.1f s)", (System.nanoTime() - t0) / 1e9, verifySecs,
          run.presplitSeconds()));
    } finally {
      channels.close();
    }
  }
}
