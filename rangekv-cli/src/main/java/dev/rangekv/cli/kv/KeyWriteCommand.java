package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine.Parameters;

/** The base of the commands that write one KEY (put, del): they print {@code OK}, or key and ok as JSON. */
abstract class KeyWriteCommand extends ClusterCommand {
  @Parameters(index = "0", paramLabel = "KEY")
  String key;

  /** The write to run on {@code k}; parses the other arguments first, so bad input fails before any call. */
  abstract Consumer<RangeKvClient> write(Key k);

  @Override
  protected final void execute(List<String> addresses) {
    Key k = Key.of(parseBytes(key, "KEY"));
    Consumer<RangeKvClient> write = write(k);
    kvRun(addresses, c -> {
      write.accept(c);
      return null;
    });
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
