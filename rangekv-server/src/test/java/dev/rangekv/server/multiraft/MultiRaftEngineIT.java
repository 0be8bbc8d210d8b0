package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.OnMultiRaftEngine;
import dev.rangekv.server.node.RaftTuning;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes whose range groups run on the multi-raft engine: puts, linearizable gets, scans across
 * ranges and splits end to end, then a restart of every node from its log database and store, after
 * which every acknowledged write reads back. Then the idle groups quiesce on every node, reads wake them,
 * and when a node that leads ranges stops while they are quiesced, their followers (heartbeat-free, watching
 * the node's keep-alives) elect new leaders and take writes.
 */
@ExtendWith(OnMultiRaftEngine.class)
class MultiRaftEngineIT {
  @TempDir Path dir;

  static String key(int i) {
    return String.format("k%05d", i);
  }

  @Test
  @Timeout(180)
  void putsGetsScansAndSplits_thenEveryWriteSurvivesARestart() throws Exception {
    Map<String, String> model = new TreeMap<>();
    try (LocalCluster cluster = LocalCluster.start(3, dir, RaftTuning.forTests())) {
      for (int i = 0; i < cluster.size(); i++) {
        assertThat(cluster.node(i).consensus()).isInstanceOf(MultiRaftEngine.class);
      }
      try (ClusterRouter router = router(cluster)) {
        router.refresh();
        for (int i = 0; i < 60; i++) {
          put(router, model, key(i * 10), "a" + i);
        }
        router.split(Key.utf8(key(200)));
        router.split(Key.utf8(key(400)));
        assertThat(router.awaitRanges(3, Duration.ofSeconds(30))).hasSize(3);
        for (int i = 0; i < 60; i++) {
          put(router, model, key(i * 10 + 1), "b" + i);
          put(router, model, key(i * 10), "c" + i); // overwrites, on both sides of each split
        }
        router.delete(key(10));
        model.remove(key(10));
        assertReads(router, model);
      }

      for (int i = 0; i < cluster.size(); i++) {
        cluster.stop(i);
      }
      for (int i = 0; i < cluster.size(); i++) {
        cluster.restart(i);
      }
      Await.until(Duration.ofSeconds(30), "every node to reopen its three range groups", () -> {
        for (int i = 0; i < cluster.size(); i++) {
          if (cluster.node(i).consensus().openRanges().size() != 3) {
            return false;
          }
        }
        return true;
      });
      try (ClusterRouter router = router(cluster)) {
        router.refresh();
        assertReads(router, model);
        put(router, model, key(999), "after-restart");
        assertReads(router, model);

        awaitAllQuiesced(cluster, List.of(0, 1, 2));
        assertReads(router, model); // linearizable reads wake the quiesced groups and are answered

        awaitAllQuiesced(cluster, List.of(0, 1, 2));
        int stopped = leaderOfMostRanges(cluster);
        List<Long> ledByStopped = List.copyOf(ledBy(cluster, stopped));
        List<Integer> rest = new ArrayList<>(List.of(0, 1, 2));
        rest.remove(Integer.valueOf(stopped));
        cluster.stop(stopped);
        // the followers hear no heartbeat either way: they find the leader gone by its node's keep-alives
        Await.until(Duration.ofSeconds(20), "a new leader on a live node for every range " + ledByStopped, () -> {
          for (long rangeId : ledByStopped) {
            if (rest.stream().noneMatch(i -> leads(cluster, i, rangeId))) {
              return false;
            }
          }
          return true;
        });
        router.refresh();
        for (int i = 0; i < 60; i++) {
          put(router, model, key(i * 10 + 2), "d" + i); // every range, with one node down
        }
        assertReads(router, model);
      }
    }
  }

  private static MultiRaftEngine engine(LocalCluster cluster, int i) {
    return (MultiRaftEngine) cluster.node(i).consensus();
  }

  /** Until every open group on the given nodes is quiesced (no request reached them for a few heartbeats). */
  private static void awaitAllQuiesced(LocalCluster cluster, List<Integer> nodes) {
    Await.until(Duration.ofSeconds(30), "every range group on nodes " + nodes + " to quiesce", () -> {
      for (int i : nodes) {
        MultiRaftEngine e = engine(cluster, i);
        if (e.quiescedGroups() != e.openRanges().size()) {
          return false;
        }
      }
      return true;
    });
  }

  private static boolean leads(LocalCluster cluster, int i, long rangeId) {
    return cluster.node(i).consensus().leadership(rangeId).map(l -> l.leader()).orElse(false);
  }

  private static List<Long> ledBy(LocalCluster cluster, int i) {
    return cluster.node(i).consensus().openRanges().stream().filter(r -> leads(cluster, i, r)).sorted().toList();
  }

  private static int leaderOfMostRanges(LocalCluster cluster) {
    int best = 0;
    for (int i = 1; i < cluster.size(); i++) {
      if (ledBy(cluster, i).size() > ledBy(cluster, best).size()) {
        best = i;
      }
    }
    return best;
  }

  private static ClusterRouter router(LocalCluster cluster) {
    List<String> seeds = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      seeds.add(cluster.config(i).clientAddress());
    }
    return new ClusterRouter(() -> seeds, Duration.ofSeconds(30), cluster::splitChildId);
  }

  private static void put(ClusterRouter router, Map<String, String> model, String k, String v) {
    router.put(k, v);
    model.put(k, v);
  }

  private static void assertReads(ClusterRouter router, Map<String, String> model) {
    for (Map.Entry<String, String> e : model.entrySet()) {
      assertThat(router.get(e.getKey())).as("get %s", e.getKey()).contains(e.getValue());
    }
    assertThat(router.get(key(10))).isEmpty();
    List<KeyValueProto> all = router.scan(Key.EMPTY, RangeEnd.INFINITY, 0);
    Map<String, String> scanned = new TreeMap<>();
    all.forEach(kv -> scanned.put(kv.getKey().toStringUtf8(), kv.getValue().toStringUtf8()));
    assertThat(scanned).isEqualTo(model);
  }
}
