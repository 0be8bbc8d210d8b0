package dev.rangekv.server.node;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/** Steps the node integration tests share: a router and a mover on a cluster, comparing replica stores. */
final class ClusterSteps {
  private ClusterSteps() {}

  /** A mover that reaches {@code cluster} through all its nodes, each call bounded by {@code timeout}. */
  static NodeAdminClient mover(LocalCluster cluster, Duration timeout) {
    return new NodeAdminClient(MoveIT.seeds(cluster), timeout);
  }

  /** A router over every node of {@code cluster} (the meta range grants split children), giving up on a call after 30 s. */
  static ClusterRouter router(LocalCluster cluster) {
    List<String> seeds = MoveIT.seeds(cluster);
    return new ClusterRouter(() -> seeds, Duration.ofSeconds(30), cluster::splitChildId);
  }

  /** Waits until the stores of {@code nodes} (looked up at each check) hold identical contents. */
  static void awaitSameStores(LocalCluster cluster, String what, Duration timeout, Supplier<List<Integer>> nodes) {
    Await.until(timeout, what, () -> {
      List<KeyValue> first = null;
      for (int i : nodes.get()) {
        List<KeyValue> c = cluster.node(i).store().scan(Key.EMPTY, RangeEnd.INFINITY, Integer.MAX_VALUE, false);
        if (first == null) {
          first = c;
        } else if (!same(first, c)) {
          return false;
        }
      }
      return true;
    });
  }

  private static boolean same(List<KeyValue> a, List<KeyValue> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).key().equals(b.get(i).key()) || !Arrays.equals(a.get(i).value(), b.get(i).value())) {
        return false;
      }
    }
    return true;
  }
}
