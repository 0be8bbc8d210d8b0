package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterIdentityTest {
  @TempDir
  Path dir;

  @Test
  void written_identity_readsBack_andLeavesNoTemporaryFile() throws Exception {
    ClusterIdentity id = ClusterIdentity.newCluster("n1");
    id.write(dir.resolve("data"));
    assertThat(ClusterIdentity.read(dir.resolve("data"))).contains(id);
    try (var files = Files.list(dir.resolve("data"))) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly(ClusterIdentity.FILE);
    }
  }

  @Test
  void newClusters_getDistinctIds() {
    assertThat(ClusterIdentity.newCluster("n1").clusterId()).isNotEqualTo(ClusterIdentity.newCluster("n1").clusterId());
  }

  @Test
  void aDirectoryWithoutIdentity_readsEmpty() {
    assertThat(ClusterIdentity.read(dir)).isEmpty();
  }

  @Test
  void aDamagedIdentityFile_failsNamingTheFile() throws Exception {
    Files.writeString(dir.resolve(ClusterIdentity.FILE), "cluster-id=abc\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ClusterIdentity.read(dir)).hasMessageContaining("is damaged").hasMessageContaining("identity");
  }

  @Test
  void requireNode_refusesAnotherNodeId_namingBoth() {
    ClusterIdentity id = new ClusterIdentity("c-1", "n1");
    id.requireNode("n1", dir);
    assertThatThrownBy(() -> id.requireNode("n2", dir)).isInstanceOf(IdentityMismatchException.class)
        .hasMessageContaining("node n1").hasMessageContaining("node n2").hasMessageContaining("c-1");
  }

  @Test
  void startingANode_onAnotherNodesDirectory_isRefused_beforeTheStoreIsCreated() throws Exception {
    Path data = dir.resolve("n1");
    new ClusterIdentity("c-1", "n1").write(data);
    assertThatThrownBy(() -> RangeKvNode.start(NodeConfig.loopback("n2", data))).isInstanceOf(IdentityMismatchException.class);
    try (var files = Files.list(data)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly(ClusterIdentity.FILE);
    }
  }

  @Test
  void ids_mustBePlainNames() {
    assertThatThrownBy(() -> new ClusterIdentity("a b", "n1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ClusterIdentity("c", "")).isInstanceOf(IllegalArgumentException.class);
  }
}
