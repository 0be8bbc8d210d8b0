package dev.rangekv.cli.cluster;

import dev.rangekv.cli.format.DurationText;
import dev.rangekv.cli.format.KeyFormat;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import dev.rangekv.proto.tls.TlsFiles;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options every cluster command shares (a picocli mixin). */
public final class ClusterOptions {
  @Option(names = "--cluster", paramLabel = "HOST:PORT[,HOST:PORT]",
      defaultValue = "${env:RANGEKV_CLUSTER:-127.0.0.1:7001}",
      description = "client addresses of one or more nodes (default: $RANGEKV_CLUSTER or 127.0.0.1:7001)")
  String cluster;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "15s", converter = DurationText.class,
      description = "deadline of the call, retries included (default ${DEFAULT-VALUE})")
  Duration timeout;

  @Mixin
  TlsOptions tls;

  @Option(names = "--json", description = "print JSON for scripts")
  boolean json;

  @Option(names = "--hex", description = "keys and values are hex (raw bytes) on input and output")
  boolean hex;

  /** The seed addresses, trimmed, in the order given. */
  public List<String> addresses() {
    List<String> list = Arrays.stream(cluster.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (list.isEmpty()) {
      throw new IllegalArgumentException("--cluster names no address");
    }
    for (String a : list) {
      int colon = a.lastIndexOf(':');
      if (colon <= 0 || !a.substring(colon + 1).matches("\\d{1,5}")) {
        throw new IllegalArgumentException("--cluster address '" + a + "' is not HOST:PORT");
      }
    }
    return list;
  }

  /** The client's TLS files (empty: plaintext). */
  public Optional<TlsFiles> tls() {
    return tls.files();
  }

  public Duration timeout() {
    return timeout;
  }

  public boolean json() {
    return json;
  }

  public KeyFormat keys() {
    return new KeyFormat(hex);
  }
}
