package dev.rangekv.cli.backup;

import dev.rangekv.cli.format.KeyFormat;
import dev.rangekv.cli.format.Table;
import dev.rangekv.proto.backup.BackupManifest;
import dev.rangekv.proto.backup.BackupRange;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rangekv backup show URI}: a backup's manifest, range by range. */
@Command(name = "show", mixinStandardHelpOptions = true, description = "Show a backup's manifest, range by range.")
public final class BackupShowCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin
  S3Options s3 = new S3Options();

  @Parameters(index = "0", paramLabel = "URI", description = "file:///dir or s3://bucket/prefix")
  String uri;

  @Option(names = "--json", description = "the manifest itself (protobuf JSON)")
  boolean json;

  @Option(names = "--hex", description = "keys as hex")
  boolean hex;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    KeyFormat keys = new KeyFormat(hex);
    try (Destination dest = Destinations.open(uri, s3.settings())) {
      BackupManifest m = Manifests.require(dest);
      if (json) {
        out.println(com.google.protobuf.util.JsonFormat.printer().print(m));
        out.flush();
        return 0;
      }
      out.println("backup " + m.getBackupId() + " of cluster '" + m.getClusterId() + "' (rangekv " + m.getVersion() + ")");
      out.println("span " + SpanText.format(Manifests.span(m), keys) + ", "
          + (Manifests.complete(m) ? "finished" : "INCOMPLETE") + ", " + Table.bytes(Manifests.bytes(m)));
      out.println("ranges read from " + Instant.ofEpochMilli(m.getStartedAtMillis()) + " to "
          + (Manifests.complete(m) ? Instant.ofEpochMilli(m.getFinishedAtMillis()) : "(unfinished)")
          + ": each range at one applied index, the ranges at different moments");
      if (!m.getIncrementalFrom().isEmpty()) {
        out.println("incremental from " + m.getIncrementalFrom());
      }
      Table t = new Table("RANGE", "SPAN", "GEN", "APPLIED", "FILES", "SIZE", "FROM");
      for (BackupRange r : m.getRangesList()) {
        t.row("r" + r.getRangeId(), SpanText.format(Manifests.span(r), keys), r.getGeneration(), r.getAppliedIndex(),
            r.getFilesCount(), Table.bytes(r.getFilesList().stream().mapToLong(f -> f.getSize()).sum()),
            r.getBaseUri().isEmpty() ? "here" : r.getBaseUri());
      }
      t.print(out);
    }
    out.flush();
    return 0;
  }
}
