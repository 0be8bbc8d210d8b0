package dev.rangekv.cli.cluster;

import java.net.ConnectException;
import java.util.List;
import java.util.Optional;

/**
 * Names why a node could not be reached, in words: a refused connection names the address where
 * nothing listens; a TLS cause is named by {@link TlsHints} (and only then is TLS advice given).
 */
public final class Unreachable {
  private static final String REFUSED = "Connection refused: ";

  private Unreachable() {
  }

  /**
   * {@code e}'s cause in one line; {@code plaintextTo}: the addresses a plaintext client called (empty
   * when it used TLS), asked whether they speak TLS when one of them closed the connection.
   */
  public static String describe(Throwable e, List<String> plaintextTo) {
    Optional<ConnectException> refused = refused(e);
    if (refused.isPresent()) {
      return address(refused.get()).map(a -> "nothing listens at " + a + ": connection refused")
          .orElse("nothing listens there: connection refused");
    }
    return TlsHints.describe(e, plaintextTo);
  }

  static Optional<ConnectException> refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException c) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** The address in Netty's "Connection refused: host/ip:port" (host may be empty), as host:port or ip:port. */
  static Optional<String> address(ConnectException e) {
    String m = String.valueOf(e.getMessage());
    int at = m.indexOf(REFUSED);
    if (at < 0) {
      return Optional.empty();
    }
    String target = m.substring(at + REFUSED.length()).trim();
    int slash = target.indexOf('/');
    if (slash > 0) { // "localhost/127.0.0.1:7000": the name as given, with the port
      int colon = target.lastIndexOf(':');
      return Optional.of(target.substring(0, slash) + (colon > slash ? target.substring(colon) : ""));
    }
    String plain = slash == 0 ? target.substring(1) : target;
    return plain.isEmpty() ? Optional.empty() : Optional.of(plain);
  }
}
