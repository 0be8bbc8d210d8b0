package dev.rangekv.cli.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups to an S3-compatible store: S3Proxy (a real S3 server, its in-memory blob store) in this JVM on
 * a free loopback port, with signed requests, against a one-node cluster with a meta range.
 */
@Timeout(120)
class S3BackupIT {
  private static final String ACCESS = "rangekv-test";
  private static final String SECRET = "rangekv-test-secret";
  @TempDir static Path dir;
  static LocalCluster cluster;
  static BlobStoreContext blobs;
  static S3Proxy proxy;

  @BeforeAll
  static void start() throws Exception {
    blobs = ContextBuilder.newBuilder("transient").credentials("identity", "credential").build(BlobStoreContext.class);
    blobs.getBlobStore().createContainerInLocation(null, "backups");
    proxy = S3Proxy.builder().blobStore(blobs.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
    proxy.start();
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> "STARTED".equals(proxy.getState()));
    // the SDK's default credentials chain reads these (as it reads AWS_ACCESS_KEY_ID in a shell)
    System.setProperty("aws.accessKeyId", ACCESS);
    System.setProperty("aws.secretAccessKey", SECRET);
    cluster = LocalCluster.startZoned(List.of("z1"), dir.resolve("cluster"), RaftTuning.forTests(),
        ControllerConfig.builder().build());
    try (KvSession kv = KvSession.open(List.of(address()), Duration.ofSeconds(30))) {
      kv.run(c -> {
        for (int i = 0; i < 50; i++) {
          c.put(Key.utf8("t/" + i), ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return null;
      });
    }
  }

  @AfterAll
  static void stop() throws Exception {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    if (cluster != null) {
      cluster.close();
    }
    if (proxy != null) {
      proxy.stop();
    }
    if (blobs != null) {
      blobs.close();
    }
  }

  static String address() {
    return cluster.config(0).clientAddress();
  }

  static String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  static CliRun run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--cluster", address(), "--s3-endpoint", endpoint(), "--s3-region", "us-east-1"));
    return CliRun.of(all.toArray(String[]::new));
  }

  static CliRun local(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--s3-endpoint", endpoint(), "--s3-region", "us-east-1"));
    return CliRun.of(all.toArray(String[]::new));
  }

  static long count(KvSession kv, String prefix) {
    return kv.run(c -> {
      KeySpan s = KeySpan.prefix(Key.utf8(prefix));
      long n = 0;
      for (var it = c.scan(s.start(), s.end()); it.hasNext(); it.next()) {
        n++;
      }
      return n;
    });
  }

  @Test
  void aBackupInABucket_verifies_restores_andNamesACorruptObject() throws Exception {
    CliRun create = CliRun.ok(run("backup", "create", "--to", "s3://backups/nightly/one", "--span", "t/"));
    assertThat(create.out()).contains("[1/1] r").contains("-- backup ");
    assertThat(blobs.getBlobStore().blobExists("backups", "nightly/one/manifest.json")).isTrue();

    assertThat(CliRun.ok(local("backup", "verify", "s3://backups/nightly/one")).out()).startsWith("ok: 1 files");
    assertThat(CliRun.ok(local("backup", "list", "s3://backups/nightly")).out())
        .contains("s3://backups/nightly/one").contains("finished");

    CliRun.ok(run("restore", "--from", "s3://backups/nightly/one", "--span", "t/", "--into-prefix", "u/"));
    try (KvSession kv = KvSession.open(List.of(address()), Duration.ofSeconds(30))) {
      assertThat(count(kv, "u/")).isEqualTo(50);
      assertThat(kv.run(c -> c.get(Key.utf8("u/7"))).map(v -> new String(v, StandardCharsets.UTF_8))).contains("v7");
    }

    BlobStore store = blobs.getBlobStore();
    String file = store.list("backups", org.jclouds.blobstore.options.ListContainerOptions.Builder
            .prefix("nightly/one/data/").recursive()).stream()
        .map(m -> m.getName()).filter(n -> n.endsWith(".sst")).findFirst().orElseThrow();
    Blob blob = store.getBlob("backups", file);
    byte[] bytes = blob.getPayload().openStream().readAllBytes();
    bytes[bytes.length / 2] ^= 0x33;
    store.putBlob("backups", store.blobBuilder(file).payload(bytes).build());
    CliRun verify = local("backup", "verify", "s3://backups/nightly/one");
    assertThat(verify.exit()).isEqualTo(1);
    assertThat(verify.err()).contains("file " + file.substring("nightly/one/".length()) + " is corrupt");
  }
}
