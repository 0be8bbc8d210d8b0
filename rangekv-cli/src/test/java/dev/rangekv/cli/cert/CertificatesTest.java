package dev.rangekv.cli.cert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.security.PeerIdentity;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rangekv cert}: what the files hold, who the node checks say they are, and the refusals. */
class CertificatesTest {
  @TempDir
  Path dir;

  private static X509Certificate read(Path p) throws Exception {
    try (InputStream in = Files.newInputStream(p)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void nodeAndClientCertificates_areSignedByTheCa_andNameTheirRole() throws Exception {
    String d = dir.toString();
    CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", d));
    CliRun.ok(CliRun.of("cert", "create-node", "127.0.0.1", "db1.example", "--certs-dir", d));
    CliRun.ok(CliRun.of("cert", "create-client", "alice", "--certs-dir", d, "--lifetime-days", "2"));
    X509Certificate ca = read(dir.resolve("ca.crt"));
    X509Certificate node = read(TlsFiles.node(dir).certChain());
    X509Certificate alice = read(TlsFiles.client(dir, "alice").certChain());
    node.verify(ca.getPublicKey());
    alice.verify(ca.getPublicKey());
    assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(node.getBasicConstraints()).isEqualTo(-1);
    assertThat(PeerIdentity.of(node)).isEqualTo(new PeerIdentity("node", true));
    assertThat(PeerIdentity.of(alice)).isEqualTo(new PeerIdentity("alice", false));
    assertThat(node.getSubjectAlternativeNames()).containsExactlyInAnyOrder(List.of(7, "127.0.0.1"), List.of(2, "db1.example"));
    assertThat(alice.getNotAfter().getTime() - alice.getNotBefore().getTime()).isBetween(2 * 86_400_000L, 2 * 86_400_000L + 120_000L);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(TlsFiles.node(dir).privateKey()))).isEqualTo("rw-------");
    assertThat(Files.readString(TlsFiles.node(dir).privateKey())).startsWith("-----BEGIN PRIVATE KEY-----");
  }

  @Test
  void refusals_areOneLine() {
    String d = dir.toString();
    CliRun noCa = CliRun.of("cert", "create-node", "127.0.0.1", "--certs-dir", d);
    assertThat(noCa.exit()).isEqualTo(1);
    assertThat(noCa.err()).contains("ca.crt is missing or unreadable").hasLineCount(1);
    CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", d));
    CliRun again = CliRun.of("cert", "create-ca", "--certs-dir", d);
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).contains("exists (pass --overwrite to replace it)");
    CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", d, "--overwrite"));
    CliRun reserved = CliRun.of("cert", "create-client", "node", "--certs-dir", d);
    assertThat(reserved.exit()).isEqualTo(2);
    assertThat(reserved.err()).contains("'node' is reserved for nodes");
    CliRun noDir = CliRun.of("cert", "create-ca");
    assertThat(noDir.exit()).isEqualTo(2);
    assertThat(noDir.err()).contains("--certs-dir (or RANGEKV_CERTS_DIR) is required");
  }
}
