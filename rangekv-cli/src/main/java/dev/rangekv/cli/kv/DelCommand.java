package dev.rangekv.cli.kv;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import java.util.function.Consumer;
import picocli.CommandLine.Command;

/** {@code rangekv del KEY}: deleting an absent key succeeds. */
@Command(name = "del", mixinStandardHelpOptions = true, description = "Delete KEY (succeeds when it is absent).")
public final class DelCommand extends KeyWriteCommand {
  @Override
  Consumer<RangeKvClient> write(Key k) {
    return c -> c.delete(k);
  }
}
