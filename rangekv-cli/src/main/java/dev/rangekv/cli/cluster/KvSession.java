package dev.rangekv.cli.cluster;

import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.InvalidArgumentException;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * A {@link RangeKvClient} for one command run: connects through the seeds within the command's
 * {@code --timeout} but at most 4 s (an unreachable cluster should fail in seconds), then runs calls
 * with the command's {@code --timeout}.
 * Client failures become one-line {@link CliException}s carrying the client's error code.
 */
public final class KvSession implements AutoCloseable {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(4);
  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(3);

  private final RangeKvClient client;
  private final List<String> seeds;
  /** No TLS: a closed connection may be a secure node's answer to plaintext. */
  private final boolean plaintext;

  private KvSession(RangeKvClient client, List<String> seeds, boolean plaintext) {
    this.client = client;
    this.seeds = seeds;
    this.plaintext = plaintext;
  }

  public static KvSession open(List<String> seeds, Duration timeout) {
    return open(seeds, timeout, java.util.Optional.empty());
  }

  /** A session with mutual TLS when {@code tls} is given. */
  public static KvSession open(List<String> seeds, Duration timeout, java.util.Optional<dev.rangekv.proto.tls.TlsFiles> tls) {
    ClientOptions plain = connectOptions(timeout);
    ClientOptions options = tls.map(plain::withTls).orElse(plain);
    RangeKvClient c;
    try {
      c = RangeKvClient.connect(seeds, options);
    } catch (RangeKvException e) {
      // TLS advice only from Unreachable, when a handshake failed: not for a refused connection or a timeout
      throw new CliException("cannot reach the cluster at " + String.join(",", seeds) + " (" + e.code() + ": "
          + Unreachable.describe(e, tls.isEmpty() ? seeds : List.of()) + ")", e);
    }
    return new KvSession(c.withTimeout(timeout), seeds, tls.isEmpty());
  }

  /**
   * The client options for connecting under a command's {@code timeout}: the connect deadline is the
   * smaller of {@code timeout} and 4 s, each attempt the smaller of {@code timeout} and 3 s, so a command
   * never waits for an unreachable cluster longer than its own {@code --timeout}.
   */
  public static ClientOptions connectOptions(Duration timeout) {
    return ClientOptions.defaults()
        .withTimeout(min(timeout, CONNECT_TIMEOUT))
        .withAttemptTimeout(min(timeout, ATTEMPT_TIMEOUT));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  /** Runs {@code call} on the client, translating its failures. */
  public <R> R run(Function<RangeKvClient, R> call) {
    try {
      return call.apply(client);
    } catch (InvalidArgumentException e) {
      throw CliException.invalidInput("invalid argument (" + e.limit() + "): " + e.getMessage(), e);
    } catch (RangeKvException e) {
      throw new CliException(e.code() + ": " + Unreachable.describe(e, plaintext ? seeds : List.of())
          + " (cluster " + String.join(",", seeds) + ")", e);
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
