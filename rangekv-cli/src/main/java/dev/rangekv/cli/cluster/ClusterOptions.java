package dev.rangekv.cli.cluster;

import dev.rangekv.cli.format.DurationText;
import dev.rangekv.cli.format.KeyFormat;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
      description = "deadline of the call, retries included; connecting waits at most this or 4 s, whichever is"
          + " shorter (default ${DEFAULT-VALUE})")
  Duration timeout;

  @Mixin
  TlsOptions tls;

  @Option(names = "--json", description = "print JSON for scripts")
  boolean json;

  @Option(names = "--hex", description = "keys and values are hex (raw bytes) on input and output")
  boolean hex;

  /** The options {@link #quick} reads: valued ones, then flags (the TLS mixin's included). */
  public static final Set<String> VALUED = Set.of("--cluster", "--timeout", "--certs-dir", "--user");
  public static final Set<String> FLAGS = Set.of("--json", "--hex", "--insecure");

  /**
   * These options as picocli would set them from {@code values} (option name to its text) and {@code
   * flags}, defaults included, for the fast path; throws {@link QuickRun.Declined} where picocli would
   * report an error or the fast path cannot be sure to read it the same way (e.g. an empty variable).
   */
  public static ClusterOptions quick(Map<String, String> values, Set<String> flags) {
    ClusterOptions o = new ClusterOptions();
    o.cluster = values.containsKey("--cluster") ? values.get("--cluster") : environment("RANGEKV_CLUSTER", "127.0.0.1:7001");
    try {
      o.timeout = DurationText.parse(values.getOrDefault("--timeout", "15s"));
    } catch (RuntimeException e) {
      throw new QuickRun.Declined("--timeout: " + e.getMessage());
    }
    o.tls = new TlsOptions();
    String certs = values.containsKey("--certs-dir") ? values.get("--certs-dir") : environment("RANGEKV_CERTS_DIR", null);
    try {
      o.tls.certsDir = certs == null ? null : Path.of(certs);
    } catch (InvalidPathException e) {
      throw new QuickRun.Declined("--certs-dir: " + e.getMessage());
    }
    o.tls.user = values.getOrDefault("--user", "root");
    o.tls.insecure = flags.contains("--insecure");
    o.json = flags.contains("--json");
    o.hex = flags.contains("--hex");
    return o;
  }

  /** An environment variable as a picocli default ({@code ${env:NAME:-fallback}}); empty ones are left to picocli. */
  private static String environment(String name, String fallback) {
    String v = System.getenv(name);
    if (v == null) {
      return fallback;
    }
    if (v.isEmpty() || v.contains("${")) {
      throw new QuickRun.Declined("$" + name + " is empty or holds a ${...}");
    }
    return v;
  }

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
