package dev.rangekv.cli.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.server.node.ClusterIdentity;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.server.node.RaftTuning;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code start} refusals that come after the arguments parse: each is one line, exit 1, no stack trace,
 * and leaves the data directory as it was (or absent).
 */
@Timeout(120)
class StartRefusalsIT {
  @TempDir
  Path dir;

  private CliRun start(String nodeId, Path data, String... extra) {
    List<String> args = new ArrayList<>(List.of("start", "--node-id", nodeId, "--listen",
        "127.0.0.1:" + NodeConfig.freePort(), "--raft-listen", "127.0.0.1:" + NodeConfig.freePort(),
        "--data-dir", data.toString(), "--insecure"));
    args.addAll(List.of(extra));
    return CliRun.of(args.toArray(String[]::new));
  }

  private static void assertOneLineRefusal(CliRun r, String... parts) {
    assertThat(r.exit()).as(r.toString()).isEqualTo(1);
    assertThat(r.err().lines().toList()).as(r.toString()).hasSize(1);
    assertThat(r.err()).startsWith("error: ").contains(parts);
  }

  @Test
  void aDataDirectoryOfAnotherNode_isRefused_namingBothIds_andStaysAsItWas() throws Exception {
    Path data = dir.resolve("d");
    new ClusterIdentity("c-42", "n2").write(data);
    List<String> before = listing(data);
    assertOneLineRefusal(start("n1", data), "belongs to node n2", "cluster c-42", "--node-id n1");
    assertThat(listing(data)).isEqualTo(before);
  }

  @Test
  void aBusyPort_isOneLine_andNoDirectoryIsMade() throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress("127.0.0.1", 0));
      Path data = dir.resolve("d");
      CliRun r = CliRun.of("start", "--node-id", "n1", "--listen", "127.0.0.1:" + busy.getLocalPort(), "--raft-listen",
          "127.0.0.1:" + NodeConfig.freePort(), "--data-dir", data.toString(), "--insecure");
      assertOneLineRefusal(r, "--listen port 127.0.0.1:" + busy.getLocalPort() + " is not free");
      assertThat(data).doesNotExist();
      CliRun raft = CliRun.of("start", "--node-id", "n1", "--listen", "127.0.0.1:" + NodeConfig.freePort(),
          "--raft-listen", "127.0.0.1:" + busy.getLocalPort(), "--data-dir", data.toString(), "--insecure");
      assertOneLineRefusal(raft, "--raft-listen port");
      assertThat(data).doesNotExist();
    }
  }

  @Test
  void joinThroughAnAddressWhereNothingListens_saysSo_andLeavesNoDirectory() {
    Path data = dir.resolve("d");
    String nowhere = "127.0.0.1:" + NodeConfig.freePort();
    assertOneLineRefusal(start("n1", data, "--join", nowhere), "nothing answered at --join " + nowhere);
    assertThat(data).doesNotExist();
  }

  @Test
  void aDirectoryWithFilesButNoIdentity_neverBootstraps() throws Exception {
    Path data = dir.resolve("d");
    Files.createDirectories(data.resolve("store"));
    assertOneLineRefusal(start("n1", data), "holds files but no identity file");
    assertThat(ClusterIdentity.read(data)).isEmpty();
  }

  @Test
  void joiningAnotherCluster_isRefused_namingBothClusterIds() throws Exception {
    ControllerConfig controller = ControllerConfig.builder().tickMillis(500).deadNodeTimeoutMillis(5_000).build();
    try (LocalCluster other = LocalCluster.start(1, dir.resolve("other"), RaftTuning.forTests(), controller)) {
      Path data = dir.resolve("d");
      new ClusterIdentity("c-mine", "n7").write(data);
      List<String> before = listing(data);
      String seed = other.node(0).config().clientAddress();
      assertOneLineRefusal(start("n7", data, "--join", seed), "belongs to cluster c-mine",
          "of cluster " + other.node(0).clusterId(), "refused");
      assertThat(listing(data)).isEqualTo(before);
    }
  }

  private static List<String> listing(Path root) throws Exception {
    try (Stream<Path> s = Files.walk(root)) {
      return s.map(p -> root.relativize(p).toString()).sorted().toList();
    }
  }
}
