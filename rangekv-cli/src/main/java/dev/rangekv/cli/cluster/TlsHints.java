package dev.rangekv.cli.cluster;

import io.grpc.StatusRuntimeException;
import javax.net.ssl.SSLException;

/**
 * Turns a failed connection into one line that names the TLS cause (a certificate of another CA, a
 * plaintext client at a secure node or the reverse), which gRPC reports only as UNAVAILABLE.
 */
final class TlsHints {
  private TlsHints() {
  }

  /** {@code e}'s message, with the TLS cause named when there is one. */
  static String describe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLException ssl) {
        String m = String.valueOf(ssl.getMessage());
        if (m.contains("not an SSL/TLS record")) {
          return "TLS handshake failed: the node speaks plaintext (an insecure cluster: use --insecure)";
        }
        return "TLS handshake failed: " + firstLine(m) + " (is --certs-dir's ca.crt this cluster's CA, and the"
            + " certificate unexpired?)";
      }
    }
    String m = text(e);
    // the node closed the connection unasked, which a secure node does to a plaintext client (its TLS
    // handshake failed there); the client's own summary ("no node answered") may wrap the cause
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.CompletionException) {
        continue; // its message repeats its cause's
      }
      String c = text(t);
      if (c.contains("Network closed for unknown reason") || c.contains("Connection reset")) {
        return firstLine(m) + (t == e ? "" : " (" + firstLine(c) + ")")
            + " (a secure cluster closes plaintext connections: give --certs-dir or $RANGEKV_CERTS_DIR)";
      }
    }
    return firstLine(m);
  }

  private static String text(Throwable e) {
    return e instanceof StatusRuntimeException s && s.getStatus().getDescription() != null
        ? s.getStatus().getDescription() : String.valueOf(e.getMessage());
  }

  private static String firstLine(String m) {
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
