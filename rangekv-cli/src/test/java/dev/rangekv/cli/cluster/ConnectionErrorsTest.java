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
import java.util.List;
import io.grpc.netty.shaded.io.netty.handler.ssl.JdkSslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a command says when it cannot reach a node: a refused connection names the address where
 * nothing listens and gives no TLS advice; a failed TLS handshake says so; a connection the node closed
 * gets TLS advice only when the node speaks TLS.
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
  void aConnectionTheNodeClosed_getsTheTlsAdvice_onlyWhenTheNodeSpeaksTls() throws Exception {
    RuntimeException closed = new io.grpc.StatusRuntimeException(
        io.grpc.Status.UNAVAILABLE.withDescription("Network closed for unknown reason"));
    RuntimeException wrapped = new RuntimeException("no node answered ListRanges",
        new java.util.concurrent.CompletionException(closed));
    try (ServerSocket closing = peer(s -> { }); ServerSocket tls = tlsPeer()) {
      String plain = "127.0.0.1:" + closing.getLocalPort();
      String secure = "127.0.0.1:" + tls.getLocalPort();
      assertThat(Unreachable.describe(wrapped, List.of(plain)))
          .as("a node that closes connections but answers no TLS: no TLS advice")
          .isEqualTo("no node answered ListRanges (Network closed for unknown reason)");
      assertThat(Unreachable.describe(wrapped, List.of(plain, secure)))
          .startsWith("no node answered ListRanges (Network closed for unknown reason)")
          .contains("the node speaks TLS").contains("give --certs-dir");
      assertThat(Unreachable.describe(wrapped, List.of())).as("the client used TLS itself").doesNotContain("certs-dir");
    }
    assertThat(Unreachable.describe(new RuntimeException("deadline passed"), List.of())).isEqualTo("deadline passed");
  }

  /** A loopback peer that hands each connection to {@code answer} and closes it. */
  private static ServerSocket peer(java.util.function.Consumer<Socket> answer) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> {
      while (!server.isClosed()) {
        try (Socket s = server.accept()) {
          answer.accept(s);
        } catch (IOException e) {
          // closed at the end of the test
        }
      }
    }, "peer");
    t.setDaemon(true);
    t.start();
    return server;
  }

  /** A loopback TLS peer (a node certificate made by 'rangekv cert') that requires client certificates. */
  private ServerSocket tlsPeer() throws Exception {
    Path certs = dir.resolve("peer");
    CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", certs.toString()));
    CliRun.ok(CliRun.of("cert", "create-node", "127.0.0.1", "--certs-dir", certs.toString()));
    SslContext netty = SslContextBuilder.forServer(certs.resolve("node.crt").toFile(), certs.resolve("node.key").toFile())
        .sslProvider(SslProvider.JDK).build();
    SSLServerSocket server = (SSLServerSocket) ((JdkSslContext) netty).context().getServerSocketFactory()
        .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
    server.setNeedClientAuth(true);
    Thread t = new Thread(() -> {
      while (!server.isClosed()) {
        try (SSLSocket s = (SSLSocket) server.accept()) {
          s.setSoTimeout(5_000);
          s.startHandshake();
        } catch (IOException e) {
          // the probe has no client certificate: the handshake fails here, as a secure node's does
        }
      }
    }, "tls-peer");
    t.setDaemon(true);
    t.start();
    return server;
  }

  @Test
  void theRefusedAddress_isReadFromNettysMessage() {
    assertThat(Unreachable.address(new java.net.ConnectException("Connection refused: /127.0.0.1:7000")))
        .contains("127.0.0.1:7000");
    assertThat(Unreachable.address(new java.net.ConnectException(
        "finishConnect(..) failed: Connection refused: localhost/127.0.0.1:7000"))).contains("localhost:7000");
    assertThat(Unreachable.address(new java.net.ConnectException("Connection refused"))).isEmpty();
    assertThat(Unreachable.describe(new RuntimeException("wrapped", new java.net.ConnectException("Connection refused")),
        List.of()))
        .isEqualTo("nothing listens there: connection refused");
  }
}
