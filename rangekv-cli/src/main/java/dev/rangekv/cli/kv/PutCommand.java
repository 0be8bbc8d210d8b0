package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.core.key.Key;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rangekv put KEY VALUE}. */
@Command(name = "put", mixinStandardHelpOptions = true, description = "Write KEY = VALUE.")
public final class PutCommand extends ClusterCommand {
  @Parameters(index = "0", paramLabel = "KEY")
  String key;

  @Parameters(index = "1", paramLabel = "VALUE")
  String value;

  @Override
  protected void execute(List<String> addresses) {
    Key k = Key.of(parseBytes(key, "KEY"));
    byte[] v = parseBytes(value, "VALUE");
    try (KvSession kv = kv(addresses)) {
      kv.run(c -> {
        c.put(k, v);
        return null;
      });
    }
    if (json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("key", keys().plain(k.toByteArray()));
      m.put("ok", true);
      printJson(m);
    } else {
      out().println("OK");
    }
  }
}
