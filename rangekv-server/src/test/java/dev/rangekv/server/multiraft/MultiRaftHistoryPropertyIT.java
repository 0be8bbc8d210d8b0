package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.server.consensus.Leadership;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.OnMultiRaftEngine;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seam's replicated-writes property on the real multi-raft runtime, in process: three nodes, each
 * write putting its own key through a random node, with seeded leader transfers, a split at a random
 * point and clean restarts of a random node between writes. Afterwards every replica holds the same data,
 * every acknowledged write is there, every write whose call failed is there or not (its outcome is
 * unknown to the caller), and no key nobody wrote is. Seeded: a failure names the seed, {@code
 * -Drangekv.seed=N} replays the choices (the interleaving of real threads differs).
 */
@ExtendWith(OnMultiRaftEngine.class)
class MultiRaftHistoryPropertyIT {
  @TempDir Path dir;

  @Test
  @Timeout(240)
  void writesTransfersASplitAndRestarts_convergeToTheAcknowledgedHistory() {
    Property.named("multi-raft history").cases(2).sizes(40, 100).check(this::runCase);
  }

  private void runCase(Gen gen) throws Exception {
    Map<String, Boolean> sent = new LinkedHashMap<>(); // key -> acknowledged
    try (LocalCluster cluster = LocalCluster.start(3, Files.createTempDirectory(dir, "case"), RaftTuning.forTests())) {
      int writes = gen.size();
      int splitAt = gen.nextInt(writes);
      int restarts = 0;
      int transfers = 0;
      String splitKey = String.valueOf((char) ('b' + gen.nextInt(24)));
      try (ClusterRouter router = router(cluster)) {
        router.refresh();
        for (int i = 0; i < writes; i++) {
          if (i == splitAt) {
            router.split(Key.utf8(splitKey));
          }
          if (gen.chance(0.05)) {
            int n = gen.nextInt(cluster.size());
            cluster.stop(n);
            cluster.restart(n);
            restarts++;
          }
          if (gen.chance(0.1) && transferSomeLeadership(cluster, gen)) {
            transfers++;
          }
          String key = (char) ('a' + gen.nextInt(26)) + String.format("%04d", i);
          try {
            router.put(key, "v-" + key);
            sent.put(key, true);
          } catch (RuntimeException e) {
            sent.put(key, false); // the router gave up: the outcome is unknown
          }
        }
      }
      System.out.println("multi-raft history: writes=" + writes + " restarts=" + restarts + " transfers=" + transfers);
      Await.until(Duration.ofSeconds(60), "every replica to hold the same data", () -> {
        Map<String, String> first = stored(cluster, 0);
        for (int i = 1; i < cluster.size(); i++) {
          if (!stored(cluster, i).equals(first)) {
            return false;
          }
        }
        return true;
      });
      Map<String, String> stored = stored(cluster, 0);
      sent.forEach((key, acked) -> {
        if (acked) {
          assertThat(stored).as("acknowledged %s", key).containsEntry(key, "v-" + key);
        }
      });
      assertThat(sent.keySet()).as("no key nobody wrote").containsAll(stored.keySet());
      assertThat(sent).as("some writes were acknowledged").containsValue(true);
      for (int i = 0; i < cluster.size(); i++) {
        assertThat(cluster.node(i).consensus().openRanges()).as("range groups on node %d", i).hasSize(2);
      }
    }
  }

  /** Hands the leadership of one of a node's led ranges to another member (seeded choice); true once it moved. */
  private static boolean transferSomeLeadership(LocalCluster cluster, Gen gen) {
    RangeConsensus c = cluster.node(gen.nextInt(cluster.size())).consensus();
    for (long rangeId : c.openRanges()) {
      if (c.leadership(rangeId).map(Leadership::ready).orElse(false)) {
        List<String> others = new ArrayList<>(c.status(rangeId).orElseThrow().memberIds());
        others.remove(c.selfId());
        return !others.isEmpty()
            && c.transferLeadership(rangeId, gen.pick(others), Duration.ofSeconds(5)).exceptionally(e -> false).join();
      }
    }
    return false;
  }

  private static Map<String, String> stored(LocalCluster cluster, int node) {
    Map<String, String> out = new TreeMap<>();
    for (KeyValue kv : cluster.node(node).store().scan(Key.EMPTY, RangeEnd.INFINITY, 100_000, false)) {
      out.put(new String(kv.key().toByteArray(), StandardCharsets.UTF_8), new String(kv.value(), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static ClusterRouter router(LocalCluster cluster) {
    List<String> seeds = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seeds.add(cluster.config(i).clientAddress());
    }
    return new ClusterRouter(() -> seeds, Duration.ofSeconds(30), cluster::splitChildId);
  }
}
