package dev.rangekv.cli.kv;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rangekv put KEY VALUE}. */
@Command(name = "put", mixinStandardHelpOptions = true, description = "Write KEY = VALUE.")
public final class PutCommand extends KeyWriteCommand {
  @Parameters(index = "1", paramLabel = "VALUE")
  String value;

  @Override
  Consumer<RangeKvClient> write(Key k) {
    byte[] v = parseBytes(value, "VALUE");
    return c -> c.put(k, v);
  }
}
