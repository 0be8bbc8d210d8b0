package dev.rangekv.cli.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rangekv node remove}: refused (one line, nothing changed) for a live node, a meta voter and an
 * unknown id; a stopped node is removed for good once the controller has repaired its replicas.
 */
@Timeout(180)
class NodeRemoveCommandIT {
  @TempDir
  Path dir;

  @Test
  void aDeadNode_isRemovedForGood_aLiveOrUnknownOneIsNot() throws Exception {
    ControllerConfig controller = ControllerConfig.builder().tickMillis(500).deadNodeTimeoutMillis(3_000).build();
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests(), controller)) {
      String seeds = cluster.config(0).clientAddress() + "," + cluster.config(1).clientAddress();
      await("4 live nodes", () -> CliRun.of("nodes", "--cluster", seeds).out().contains("4 nodes, 4 live"));

      CliRun live = CliRun.of("node", "remove", "n4", "--cluster", seeds);
      assertThat(live.exit()).as(live.toString()).isEqualTo(1);
      assertThat(live.err()).contains("node n4 is live").hasLineCount(1);
      CliRun unknown = CliRun.of("node", "remove", "n9", "--cluster", seeds);
      assertThat(unknown.exit()).isEqualTo(1);
      assertThat(unknown.err()).contains("no node n9");

      cluster.stop(3);
      CliRun last = Await.result(Duration.ofSeconds(120), Duration.ofMillis(500), "n4 removed",
          () -> CliRun.of("node", "remove", "n4", "--cluster", seeds), r -> {
            if (r.exit() != 0) {
              // refused while live, then while a range still lists it: the controller repairs first
              assertThat(r.err()).containsAnyOf("is live", "still holds replicas");
            }
            return r.exit() == 0;
          });
      assertThat(last.exit()).as(String.valueOf(last)).isZero();
      assertThat(last.out()).contains("removed node n4");
      assertThat(CliRun.of("nodes", "--cluster", seeds).out()).contains("3 nodes, 3 live").doesNotContain("n4");
      assertThat(CliRun.of("events", "--limit", "0", "--cluster", seeds).out()).contains("node-removed");
      assertThat(CliRun.of("node", "remove", "n4", "--cluster", seeds).err()).contains("no node n4");
      CliRun voter = CliRun.of("node", "remove", "n1", "--cluster", seeds);
      assertThat(voter.exit()).isEqualTo(1);
      assertThat(voter.err()).containsAnyOf("is live", "meta voter");
    }
  }

  private static void await(String what, java.util.function.BooleanSupplier condition) {
    Await.until(Duration.ofSeconds(60), Duration.ofMillis(200), what, condition);
  }
}
