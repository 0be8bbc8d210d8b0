package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rangekv put KEY VALUE} or {@code rangekv put KEY --value-file F}. Arguments are taken as typed:
 * a value starting with {@code @} is that text, never a file's contents (picocli's @file expansion is off).
 */
@Command(name = "put", mixinStandardHelpOptions = true,
    description = "Write KEY = VALUE (or the bytes of --value-file). A VALUE starting with @ is stored as typed.")
public final class PutCommand extends KeyWriteCommand {
  @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE")
  String value;

  @Option(names = "--value-file", paramLabel = "FILE", description = "read the value from FILE (its bytes as they are)")
  Path valueFile;

  @Override
  Consumer<RangeKvClient> write(Key k) {
    if ((value == null) == (valueFile == null)) {
      throw usageError("give either VALUE or --value-file FILE", null);
    }
    byte[] v = value != null ? parseBytes(value, "VALUE") : read(valueFile);
    return c -> c.put(k, v);
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new CliException("--value-file " + file + ": cannot read it (" + e + ")", e);
    }
  }
}
