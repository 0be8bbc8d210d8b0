package dev.rangekv.cli.process;

import dev.rangekv.proto.KvServiceGrpc;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.server.node.ClusterIdentity;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory remembers its cluster (README, "A 3-process cluster on one machine"), as a user meets it: the node that bootstrapped a 4-node cluster is drained of every data
 * replica, stopped and restarted with the README's command (no {@code --join}). It must resume, not
 * bootstrap a second cluster: it holds no range it was not given, every acknowledged write reads back
 * through it, and a later write through it is seen by the others. Then the same node pointed with
 * {@code --join} at another cluster is refused with one line naming both cluster ids, its directory
 * unchanged.
 */
@Timeout(420)
class ClusterIdentityProcessIT {
  private static final Duration STEP = Duration.ofSeconds(90);

  @TempDir
  Path dir;

  private final List<CliProcess> processes = new ArrayList<>();
  private final List<String> clientAddresses = new ArrayList<>();
  private final List<List<String>> nodeArgs = new ArrayList<>();
  private final Map<String, String> acknowledged = new LinkedHashMap<>();

  @Test
  void drainedBootstrapNode_restartedWithoutJoin_resumes_andLosesNothing() throws Exception {
    try {
      CliProcess n1 = startNode("n1", List.of());
      n1.awaitOutput(o -> o.contains("bootstrapped a new cluster"), STEP, "n1 bootstraps");
      for (int i = 0; i < 10; i++) {
        put("k" + i, "v" + i, clientAddresses.get(0));
      }
      // n2..n4 start together (as an operator starts them), so their JVM start-ups overlap
      List<CliProcess> joining = new ArrayList<>();
      for (int i = 2; i <= 4; i++) {
        joining.add(startNode("n" + i, List.of("--join", clientAddresses.get(0))));
      }
      for (int i = 0; i < joining.size(); i++) {
        joining.get(i).awaitOutput(o -> o.contains("joined the cluster"), STEP, "n" + (i + 2) + " joins");
      }
      String all = String.join(",", clientAddresses);
      CliRun.await(STEP, r -> r.out().contains("4 nodes, 4 live"), "4 live nodes", "nodes", "--cluster", all);
      CliRun.await(STEP, r -> r.exit() == 0 && allRanges(r.out(), reps -> reps.size() == 3), "every range on 3 nodes",
          "ranges", "--json", "--cluster", all);

      // m1, the other cluster of the last step, bootstraps meanwhile (its JVM start-up overlaps the drain);
      // it never learns of this cluster's addresses
      CliProcess m1 = startNode("m1", List.of());

      // drain n1: move each of its replicas to a node lacking the range, until no range lists n1
      // (polling the map through the CLI; a move refused while the controller moves the same range is tried again)
      Map<Long, List<String>> map = Await.result(STEP, Duration.ofMillis(500), "n1 drained", () -> {
        Map<Long, List<String>> now = ClusterProcessesIT.replicas(CliRun.ok(CliRun.of("ranges", "--json", "--cluster", all)).out());
        if (!now.isEmpty() && now.values().stream().noneMatch(reps -> reps.contains("n1"))) {
          return now;
        }
        for (Map.Entry<Long, List<String>> e : now.entrySet()) {
          if (e.getValue().contains("n1")) {
            String to = Stream.of("n2", "n3", "n4").filter(n -> !e.getValue().contains(n)).findFirst().orElse(null);
            if (to != null) {
              CliRun.of("move", "--range", String.valueOf(e.getKey()), "--from", "n1", "--to", to, "--cluster", all,
                  "--timeout", "60s");
            }
          }
        }
        return now;
      }, now -> !now.isEmpty() && now.values().stream().noneMatch(reps -> reps.contains("n1")));
      assertThat(map.values()).as("n1 drained: %s", map).noneMatch(reps -> reps.contains("n1"));
      String others = String.join(",", clientAddresses.subList(1, 4));
      for (int i = 10; i < 20; i++) {
        put("k" + i, "v" + i, others); // acknowledged while n1 holds no data replica
      }

      // stop n1 and restart it exactly as the README shows (no --join)
      processes.get(0).terminate();
      assertThat(processes.get(0).awaitExit(STEP)).isNotNegative();
      CliProcess again = CliProcess.start(dir.resolve("n1-restart.log"), nodeArgs.get(0));
      processes.add(again);
      again.awaitOutput(o -> o.contains("node n1 resumed from its data directory"), STEP, "n1 resumes");
      assertThat(again.output()).doesNotContain("range bootstrapped").doesNotContain("bootstrapped a new cluster");
      CliRun.await(STEP, r -> r.out().contains("4 nodes, 4 live"), "n1 live again", "nodes", "--cluster", all);

      // n1 serves no range it does not hold: whatever it lists is in the cluster's map with n1 as a replica
      // (the controller may give it replicas again), never a range of its own making
      String viaN1 = clientAddresses.get(0);
      awaitTrue(() -> servesOnlyItsOwn(viaN1, others), "every range n1 lists names n1 in the cluster's map");
      // every acknowledged write reads back (n1 first among the seeds), and a write through n1's address
      // reaches the others
      String n1First = String.join(",", clientAddresses.subList(0, 4));
      for (Map.Entry<String, String> e : acknowledged.entrySet()) {
        assertThat(CliRun.ok(CliRun.of("get", e.getKey(), "--cluster", n1First, "--timeout", "30s")).out())
            .isEqualTo(e.getValue() + "\n");
      }
      put("after-restart", "via-n1", n1First);
      assertThat(CliRun.ok(CliRun.of("get", "after-restart", "--cluster", others, "--timeout", "30s")).out())
          .isEqualTo("via-n1\n");
      CliRun scan = CliRun.ok(CliRun.of("scan", "--from", "k", "--to", "l", "--cluster", others, "--timeout", "30s"));
      assertThat(scan.out()).endsWith("-- 20 entries; end of scan\n");
      Map<Long, List<String>> after = ClusterProcessesIT.replicas(
          CliRun.ok(CliRun.of("ranges", "--json", "--cluster", others)).out());
      assertThat(after.keySet()).as("no second range map: the same ranges as before").isEqualTo(map.keySet());

      // n1 pointed at another cluster: refused, one line naming both ids, its directory unchanged
      m1.awaitOutput(o -> o.contains("bootstrapped a new cluster"), STEP, "m1 bootstraps another cluster");
      again.terminate();
      assertThat(again.awaitExit(STEP)).isNotNegative();
      Path n1Dir = dir.resolve("n1");
      String ownId = ClusterIdentity.read(n1Dir).orElseThrow().clusterId();
      String otherId = ClusterIdentity.read(dir.resolve("m1")).orElseThrow().clusterId();
      List<String> before = listing(n1Dir);
      List<String> args = new ArrayList<>(nodeArgs.get(0));
      args.addAll(List.of("--join", clientAddresses.get(4)));
      CliProcess wrong = CliProcess.start(dir.resolve("n1-wrong.log"), args);
      processes.add(wrong);
      assertThat(wrong.awaitExit(STEP)).as(wrong.output()).isEqualTo(1);
      String refusal = wrong.output().lines().filter(l -> l.startsWith("error:")).findFirst().orElse("");
      assertThat(refusal).contains(ownId).contains(otherId).contains("refused");
      assertThat(wrong.output()).doesNotContain("\tat ");
      assertThat(listing(n1Dir)).isEqualTo(before);
      assertThat(ClusterIdentity.read(n1Dir).orElseThrow().clusterId()).isEqualTo(ownId);
    } finally {
      for (CliProcess p : processes) {
        p.close();
      }
    }
  }

  /**
   * True when every replica n1 lists is a range the cluster's map gives n1 (read again each time: a
   * replica the controller is adding shows on n1 shortly before the map names it).
   */
  private static boolean servesOnlyItsOwn(String n1, String others) {
    Map<Long, List<String>> map = ClusterProcessesIT.replicas(CliRun.ok(CliRun.of("ranges", "--json", "--cluster", others)).out());
    for (ReplicaStatus r : listRanges(n1).getReplicasList()) {
      List<String> replicas = map.get(r.getRange().getRangeId());
      if (replicas == null || !replicas.contains("n1")) {
        return false;
      }
    }
    return true;
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
    // polling the node and the map; no event to wait on
    Await.until(Duration.ofSeconds(30), Duration.ofMillis(500), what, condition);
  }

  private static ListRangesResponse listRanges(String address) {
    ManagedChannel channel = NettyChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      return KvServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .listRanges(ListRangesRequest.getDefaultInstance());
    } finally {
      channel.shutdownNow();
    }
  }

  private void put(String key, String value, String cluster) {
    CliRun.ok(CliRun.of("put", key, value, "--cluster", cluster, "--timeout", "30s"));
    acknowledged.put(key, value);
  }

  private static List<String> listing(Path root) throws Exception {
    try (Stream<Path> s = Files.walk(root)) {
      return s.map(p -> root.relativize(p) + (Files.isRegularFile(p) ? " " + size(p) : "")).sorted().toList();
    }
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private CliProcess startNode(String id, List<String> extra) throws Exception {
    String client = "127.0.0.1:" + NodeConfig.freePort();
    String raft = "127.0.0.1:" + NodeConfig.freePort();
    clientAddresses.add(client);
    List<String> args = new ArrayList<>(List.of("start", "--node-id", id, "--listen", client, "--raft-listen", raft,
        "--data-dir", dir.resolve(id).toString(), "--insecure", "--set", "controller.tick=1000", "--set", "node.dead-timeout=6000",
        "--set", "rebalance.tolerance=0.99"));
    args.addAll(extra);
    nodeArgs.add(List.copyOf(args));
    CliProcess p = CliProcess.start(dir.resolve(id + ".log"), args);
    processes.add(p);
    return p;
  }



  private static boolean allRanges(String json, Predicate<List<String>> p) {
    Map<Long, List<String>> map = ClusterProcessesIT.replicas(json);
    return !map.isEmpty() && map.values().stream().allMatch(p);
  }
}
