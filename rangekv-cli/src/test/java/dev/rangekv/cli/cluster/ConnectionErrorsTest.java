package dev.rangekv.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a command says when it cannot reach a node: a refused connection names the address where
 * nothing listens and gives no TLS advice; a failed TLS handshake says so.
 */
class ConnectionErrorsTest {
  @TempDir
  Path dir;

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void aRefusedConnection_namesTheAddress_andSaysNothingListensThere() throws IOException {
    String address = "127.0.0.1:" + closedPort();
    for (String[] args : new String[][] {
        {"get", "k", "--cluster", address, "--timeout", "1s"},
        {"put", "k", "v", "--cluster", address, "--timeout", "1s"},
        {"ranges", "--cluster", address, "--timeout", "1s"},
        {"nodes", "--cluster", address, "--timeout", "1s"}}) {
      CliRun r = CliRun.of(args);
      assertThat(r.exit()).as(r.toString()).isEqualTo(1);
      assertThat(r.err()).as(r.toString()).hasLineCount(1)
          .contains("nothing listens at " + address + ": connection refused")
          .doesNotContain("certs-dir", "TLS", "secure");
    }
  }

  @Test
  void aFailedTlsHandshake_saysSo() throws Exception {
    String certs = dir.toString();
    CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", certs));
    CliRun.ok(CliRun.of("cert", "create-client", "root", "--certs-dir", certs));
    // a plaintext peer: answers a TLS client hello with bytes that are no TLS record
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answerer = new Thread(() -> {
        while (!server.isClosed()) {
          try (Socket s = server.accept(); OutputStream out = s.getOutputStream()) {
            s.getInputStream().read(new byte[512]);
            out.write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (IOException e) {
            // closed at the end of the test, or the client hung up first
          }
        }
      }, "plaintext-peer");
      answerer.setDaemon(true);
      answerer.start();
      CliRun r = CliRun.of("get", "k", "--cluster", "127.0.0.1:" + server.getLocalPort(), "--certs-dir", certs,
          "--timeout", "2s");
      assertThat(r.exit()).as(r.toString()).isEqualTo(1);
      assertThat(r.err()).as(r.toString()).hasLineCount(1).contains("TLS handshake failed")
          .doesNotContain("nothing listens");
    }
  }

  @Test
  void aConnectionTheNodeClosed_getsTheTlsAdvice_evenWrapped() {
    RuntimeException closed = new io.grpc.StatusRuntimeException(
        io.grpc.Status.UNAVAILABLE.withDescription("Network closed for unknown reason"));
    String wrapped = Unreachable.describe(new RuntimeException("no node answered ListRanges",
        new java.util.concurrent.CompletionException(closed)));
    assertThat(wrapped).startsWith("no node answered ListRanges (Network closed for unknown reason)")
        .contains("give --certs-dir");
    assertThat(Unreachable.describe(new RuntimeException("deadline passed"))).isEqualTo("deadline passed");
  }

  @Test
  void theRefusedAddress_isReadFromNettysMessage() {
    assertThat(Unreachable.address(new java.net.ConnectException("Connection refused: /127.0.0.1:7000")))
        .contains("127.0.0.1:7000");
    assertThat(Unreachable.address(new java.net.ConnectException(
        "finishConnect(..) failed: Connection refused: localhost/127.0.0.1:7000"))).contains("localhost:7000");
    assertThat(Unreachable.address(new java.net.ConnectException("Connection refused"))).isEmpty();
    assertThat(Unreachable.describe(new RuntimeException("wrapped", new java.net.ConnectException("Connection refused"))))
        .isEqualTo("nothing listens there: connection refused");
  }
}
