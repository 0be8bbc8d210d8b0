package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.core.key.Key;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rangekv get KEY}: prints the value; a missing key is an error (exit 1) unless {@code --json}. */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Read KEY (linearizable). Exit code 1 when the key is absent (with --json: found=false, exit 0).")
public final class GetCommand extends ClusterCommand {
  @Parameters(index = "0", paramLabel = "KEY")
  String key;

  @Override
  protected void execute(List<String> addresses) {
    Key k = Key.of(parseBytes(key, "KEY"));
    Optional<byte[]> value = kvRun(addresses, c -> c.get(k));
    if (json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("key", keys().plain(k.toByteArray()));
      m.put("found", value.isPresent());
      m.put("value", value.map(v -> keys().plain(v)).orElse(null));
      printJson(m);
    } else if (value.isPresent()) {
      out().println(keys().hex() ? keys().renderValue(value.get()) : new String(value.get(), java.nio.charset.StandardCharsets.UTF_8));
    } else {
      throw new CliException("key not found: " + keys().render(k));
    }
  }
}
