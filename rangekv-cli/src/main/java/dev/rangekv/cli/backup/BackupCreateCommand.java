package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.cli.format.Table;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.replica.ClusterIdentityServiceGrpc;
import dev.rangekv.proto.replica.IdentifyRequest;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rangekv backup create --to URI [--span PREFIX | --start K --end K] [--rate R]
 * [--incremental-from URI]}: every range of the span, each read at one applied point of one replica.
 */
@Command(name = "create", mixinStandardHelpOptions = true,
    description = "Back up the cluster's ranges (or a span of them) to file:///dir; resumes an unfinished backup there.")
public final class BackupCreateCommand extends ClusterCommand {
  @picocli.CommandLine.Mixin
  S3Options s3 = new S3Options();

  @Option(names = "--to", required = true, paramLabel = "URI", description = "where the backup goes: file:///dir or s3://bucket/prefix")
  String to;

  @ArgGroup(exclusive = false)
  SpanOptions span;

  @Option(names = "--rate", paramLabel = "BYTES/S", description = "bandwidth limit per range export, e.g. 20MB (default: none)")
  String rate;

  @Option(names = "--incremental-from", paramLabel = "URI",
      description = "a finished backup of the same span: ranges unchanged since it keep its files")
  String incrementalFrom;

  @Override
  protected void execute(List<String> addresses) {
    KeySpan keys;
    long bytesPerSecond;
    try {
      keys = SpanText.parse(span, keys()).orElse(KeySpan.ALL);
      bytesPerSecond = rate == null ? 0 : RateText.bytesPerSecond(rate);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage(), e);
    }
    PeerChannels channels = PeerChannels.forCommand(64 << 20,
        options.tls().map(dev.rangekv.client.routing.NodeChannels::clientContext));
    try (MetaCalls meta = new MetaCalls(addresses, options.timeout(), options.tls());
        KvSession kv = KvSession.open(addresses, options.timeout(), options.tls());
        Destination dest = Destinations.open(to, s3.settings())) {
      Optional<BackupRun.Base> base = Optional.empty();
      if (incrementalFrom != null) {
        try (Destination b = Destinations.open(incrementalFrom, s3.settings())) {
          BackupManifest bm = Manifests.require(b);
          if (!Manifests.complete(bm)) {
            throw new dev.rangekv.cli.cluster.CliException("the base backup at " + incrementalFrom + " is incomplete");
          }
          if (!Manifests.span(bm).covers(keys)) {
            throw new dev.rangekv.cli.cluster.CliException("the base backup covers "
                + SpanText.format(Manifests.span(bm), keys()) + ", not " + SpanText.format(keys, keys()));
          }
          base = Optional.of(new BackupRun.Base(incrementalFrom, bm));
        }
      }
      RangeExport export = new RangeExport(channels, dest, bytesPerSecond, System::currentTimeMillis,
          key -> kv.run(c -> c.getAsync(key))); // a wake: the read's outcome does not matter
      BackupRun run = new BackupRun(meta, export, dest, out(), System::currentTimeMillis, keys());
      BackupManifest m = run.run(new BackupRun.Settings(keys, clusterId(channels, addresses), version(), base));
      long secs = Math.max(1, m.getFinishedAtMillis() - m.getStartedAtMillis());
      out().printf("-- backup %s of %s finished: %d ranges, %s in %.1f s (ranges read between %s and %s)%n",
          m.getBackupId(), SpanText.format(keys, keys()), m.getRangesCount(), Table.bytes(Manifests.bytes(m)),
          secs / 1000.0, java.time.Instant.ofEpochMilli(m.getStartedAtMillis()),
          java.time.Instant.ofEpochMilli(m.getFinishedAtMillis()));
    } finally {
      channels.close();
    }
  }

  private String clusterId(PeerChannels channels, List<String> addresses) {
    for (String a : addresses) {
      try {
        return ClusterIdentityServiceGrpc.newBlockingStub(channels.channel(a))
            .withDeadlineAfter(options.timeout().toMillis(), TimeUnit.MILLISECONDS)
            .identify(IdentifyRequest.getDefaultInstance()).getClusterId();
      } catch (StatusRuntimeException e) {
        // try the next seed
      }
    }
    throw new dev.rangekv.cli.cluster.CliException("cannot reach the cluster at " + addresses + " to read its id");
  }

  /** This build's version, as {@code rangekv version} prints it (the same filtered resource). */
  static String version() {
    java.util.Properties p = new java.util.Properties();
    try (java.io.InputStream in = BackupCreateCommand.class.getResourceAsStream("/dev/rangekv/cli/version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (java.io.IOException e) {
      return "unknown";
    }
    String v = p.getProperty("version", "").strip();
    return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
  }
}
