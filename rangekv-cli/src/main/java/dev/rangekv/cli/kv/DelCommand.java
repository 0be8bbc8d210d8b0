package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.core.key.Key;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rangekv del KEY}: deleting an absent key succeeds. */
@Command(name = "del", mixinStandardHelpOptions = true, description = "Delete KEY (succeeds when it is absent).")
public final class DelCommand extends ClusterCommand {
  @Parameters(index = "0", paramLabel = "KEY")
  String key;

  @Override
  protected void execute(List<String> addresses) {
    Key k = Key.of(parseBytes(key, "KEY"));
    try (KvSession kv = kv(addresses)) {
      kv.run(c -> {
        c.delete(k);
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
