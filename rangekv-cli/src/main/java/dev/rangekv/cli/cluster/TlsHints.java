package dev.rangekv.cli.cluster;

import io.grpc.StatusRuntimeException;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Turns a failed connection into one line that names the TLS cause (a certificate of another CA, a
 * plaintext client at a secure node or the reverse), which gRPC reports only as UNAVAILABLE. TLS advice
 * only when a handshake failed: the client's own, or, for a plaintext client whose connection the node
 * closed, the node's, which {@link TlsProbe} confirms by asking the node whether it speaks TLS.
 */
final class TlsHints {
  private TlsHints() {
  }

  /**
   * {@code e}'s message, with the TLS cause named when there is one; {@code plaintextTo}: the addresses a
   * plaintext client called (empty when it used TLS).
   */
  static String describe(Throwable e, List<String> plaintextTo) {
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
        String closed = firstLine(m) + (t == e ? "" : " (" + firstLine(c) + ")");
        return plaintextTo.stream().anyMatch(TlsProbe::speaksTls)
            ? closed + " (the node speaks TLS and closes plaintext connections: give --certs-dir or $RANGEKV_CERTS_DIR)"
            : closed;
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
