package dev.rangekv.cli.backup;

import dev.rangekv.cli.format.Json;
import dev.rangekv.cli.format.Table;
import dev.rangekv.proto.backup.BackupManifest;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rangekv backup list URI}: the backup at URI, or the backups in its sub-folders. */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List the backup at URI and the backups in its sub-folders.")
public final class BackupListCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin
  S3Options s3 = new S3Options();

  @Parameters(index = "0", paramLabel = "URI", description = "file:///dir or s3://bucket/prefix")
  String uri;

  @Option(names = "--json", description = "one JSON array")
  boolean json;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Destination dest = Destinations.open(uri, s3.settings())) {
      Manifests.read(dest).ifPresent(m -> rows.add(row(dest.uri(), m)));
      for (String child : dest.childrenHolding(Manifests.NAME)) {
        try (Destination d = dest.child(child)) {
          Optional<BackupManifest> m = Manifests.read(d);
          m.ifPresent(x -> rows.add(row(d.uri(), x)));
        }
      }
    }
    if (json) {
      out.println(Json.write(rows));
    } else {
      Table t = new Table("URI", "STATE", "RANGES", "SIZE", "STARTED", "BASE");
      for (Map<String, Object> r : rows) {
        t.row(r.get("uri"), r.get("state"), r.get("ranges"), Table.bytes((Long) r.get("bytes")), r.get("started"),
            r.get("incrementalFrom"));
      }
      t.print(out);
      out.println("-- " + rows.size() + " backups");
    }
    out.flush();
    return 0;
  }

  private static Map<String, Object> row(String uri, BackupManifest m) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("uri", uri);
    r.put("backupId", m.getBackupId());
    r.put("state", Manifests.complete(m) ? "finished" : "incomplete");
    r.put("ranges", m.getRangesCount());
    r.put("bytes", Manifests.bytes(m));
    r.put("started", Instant.ofEpochMilli(m.getStartedAtMillis()).toString());
    r.put("incrementalFrom", m.getIncrementalFrom().isEmpty() ? "-" : m.getIncrementalFrom());
    return r;
  }
}
