package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.format.Table;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code rangekv backup verify URI}: reads every file back and checks its checksum, and the manifest's
 * key order and coverage. Exits 1 naming every problem found (an incomplete backup is one).
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Read every file of a backup back and check checksums, key order and coverage.")
public final class BackupVerifyCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin
  S3Options s3 = new S3Options();

  @Parameters(index = "0", paramLabel = "URI", description = "file:///dir or s3://bucket/prefix")
  String uri;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (Destination dest = Destinations.open(uri, s3.settings())) {
      BackupVerify.Report r = BackupVerify.run(dest, Manifests.require(dest), u -> Destinations.open(u, s3.settings()));
      if (!r.ok()) {
        r.problems().forEach(p -> out.println("problem: " + p));
        out.flush();
        throw new CliException("backup at " + uri + " failed verification: " + r.problems().get(0)
            + (r.problems().size() > 1 ? " (and " + (r.problems().size() - 1) + " more)" : ""));
      }
      out.println("ok: " + r.files() + " files, " + Table.bytes(r.bytes()) + " checked; ranges cover the span in key order");
    }
    out.flush();
    return 0;
  }
}
