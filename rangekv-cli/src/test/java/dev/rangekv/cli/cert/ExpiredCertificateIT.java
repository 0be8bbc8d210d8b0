package dev.rangekv.cli.cert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.node.ClusterIdentity;
import dev.rangekv.server.node.MetaSettings;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.server.node.RangeKvNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secure node refuses a client certificate of its own CA that has expired, and the CLI says so in one
 * line; the same user with a valid certificate is served.
 */
class ExpiredCertificateIT {
  @TempDir
  Path dir;

  @Test
  void anExpiredClientCertificate_isRefusedInOneLine_andAValidOneIsServed() throws Exception {
    Path certs = dir.resolve("certs");
    String d = certs.toString();
    CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", d));
    CliRun.ok(CliRun.of("cert", "create-node", "127.0.0.1", "localhost", "--certs-dir", d));
    CliRun.ok(CliRun.of("cert", "create-client", "root", "--certs-dir", d));
    Certificates.Authority ca = Certificates.readAuthority(certs.resolve(TlsFiles.CA_CERT), certs.resolve(TlsFiles.CA_KEY));
    Instant now = Instant.now();
    Certificates.Issued expired = Certificates.issue(ca, "late", List.of(),
        now.minus(Duration.ofDays(30)), now.minus(Duration.ofDays(1)));
    TlsFiles late = TlsFiles.client(certs, "late");
    Certificates.writeKey(late.privateKey(), expired.key(), false);
    Certificates.writeCertificate(late.certChain(), expired.certificate(), false);

    NodeConfig base = NodeConfig.loopback("n1", dir.resolve("n1")).withTuning(RaftTuning.forTests());
    NodeConfig config = base
        .withMeta(MetaSettings.enabled(ControllerConfig.builder().build(), List.of(base.clientAddress())))
        .withTls(TlsFiles.node(certs));
    new ClusterIdentity(java.util.UUID.randomUUID().toString(), "n1").write(config.dataDir());
    try (RangeKvNode node = RangeKvNode.start(config)) {
      node.bootstrapCluster(Duration.ofSeconds(60));
      String cluster = config.clientAddress();

      CliRun.await(Duration.ofSeconds(60), r -> r.exit() == 0, "root's put served",
          "put", "k", "v", "--cluster", cluster, "--certs-dir", d, "--user", "root");

      CliRun refused = CliRun.of("get", "k", "--cluster", cluster, "--certs-dir", d, "--user", "late", "--timeout", "5s");
      assertThat(refused.exit()).as(refused.toString()).isNotZero();
      assertThat(refused.err()).as(refused.toString()).hasLineCount(1).contains("TLS handshake failed")
          .doesNotContain("Exception");
    }
  }
}
