package dev.rangekv.cli.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Asks a node's port whether it speaks TLS, for a plaintext client whose connection the node closed: a
 * secure node does that to plaintext (its TLS handshake failed), and so does a node that stops. Only a
 * peer that answers a TLS hello with a TLS record (its hello, or an alert such as a missing client
 * certificate) speaks TLS. The probe trusts any certificate because it sends nothing and only looks at
 * whether the answer is TLS.
 */
final class TlsProbe {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private TlsProbe() {}

  /** True when the peer at {@code hostPort} ("host:port") answered a TLS hello in TLS. */
  static boolean speaksTls(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      return false;
    }
    String host = hostPort.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      return false;
    }
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new AnyCertificate()}, null);
      try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
        socket.connect(new InetSocketAddress(host, port), (int) TIMEOUT.toMillis());
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        socket.startHandshake();
        return true;
      }
    } catch (SSLHandshakeException e) {
      // an alert from the peer is TLS; a plaintext answer or a close before any record is not
      String m = String.valueOf(e.getMessage());
      return m.contains("alert") && !m.contains("unrecognized SSL message");
    } catch (IOException | GeneralSecurityException e) {
      return false;
    }
  }

  /** Accepts every certificate: the probe sends no data, it only tells TLS from plaintext. */
  private static final class AnyCertificate implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
      // not a server
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
      // any: see the class comment
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
