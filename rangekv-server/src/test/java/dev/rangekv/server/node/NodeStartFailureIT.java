package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose start fails late (its client port is taken, after the store and Ratis are open) closes
 * what it opened: the same data directory starts again in the same JVM, and no thread of it is left.
 */
class NodeStartFailureIT {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void aStartThatFailsToBindItsClientPort_leavesNothingOpen() throws Exception {
    NodeConfig good = NodeConfig.loopback("n1", dir.resolve("n1")).withTuning(RaftTuning.forTests());
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      NodeConfig clash = new NodeConfig(good.nodeId(), good.host(), good.raftPort(), taken.getLocalPort(), good.dataDir(),
          good.tuning(), good.storeOptions(), good.meta(), good.http(), good.tls());

      assertThatThrownBy(() -> RangeKvNode.start(clash)).isInstanceOf(IOException.class);
    }

    Await.until(Duration.ofSeconds(30), "the failed start's threads are gone", () -> nodeThreads("n1").isEmpty());
    // the store's lock and the Raft port were released: the directory opens again at once
    try (RangeKvNode node = RangeKvNode.start(good)) {
      assertThat(node.readiness().reason()).doesNotContain("store is closed");
      assertThat(nodeThreads("n1")).isNotEmpty();
    }
  }

  private static Set<String> nodeThreads(String nodeId) {
    return Thread.getAllStackTraces().keySet().stream()
        .map(Thread::getName)
        .filter(name -> name.startsWith("rangekv-" + nodeId + "-"))
        .collect(Collectors.toSet());
  }
}
