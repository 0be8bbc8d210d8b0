package dev.rangekv.cli.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Await;
import dev.rangekv.cli.CliRun;
import dev.rangekv.server.node.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code rangekv start} processes on free loopback ports form a cluster; the cluster commands
 * work against it; a fourth node joins and the controller moves replicas to it; killing the first
 * process (the one that bootstrapped the cluster) leaves reads served and the meta range answering; the
 * killed node restarts on its data directory. Needs the meta range, controller and {@code RangeKvNode.bootstrapCluster/join}.
 */
@Timeout(300)
class ClusterProcessesIT {
  private static final Duration STEP = Duration.ofSeconds(90);
  private static final Pattern RANGE = Pattern.compile("\\{\"rangeId\":(\\d+),.*?\"replicas\":\\[(.*?)\\]");
  private static final Pattern NODE_ID = Pattern.compile("\"nodeId\":\"([^\"]+)\"");

  @TempDir
  Path dir;

  private final List<CliProcess> processes = new ArrayList<>();
  private final List<String> clientAddresses = new ArrayList<>();
  private final List<List<String>> nodeArgs = new ArrayList<>();

  @Test
  void threeProcesses_serveCommands_aFourthTakesReplicas_andReadsSurviveAKill() throws Exception {
    try {
      CliProcess n1 = startNode(1, List.of());
      n1.awaitOutput(o -> o.contains("bootstrapped a new cluster"), STEP, "n1 bootstraps");
      // writes first, on the one-node cluster: the server cannot yet add a replica to a range that was
      // never written (applied index 0: the new replica's log disagrees at index 0 and the add aborts)
      for (int i = 0; i < 10; i++) {
        CliRun.ok(CliRun.of("put", "k" + i, "v" + i, "--cluster", clientAddresses.get(0)));
      }
      // n2 and n3 start together (as an operator starts them), so their JVM start-ups overlap
      List<CliProcess> joining = List.of(startNode(2, List.of("--join", clientAddresses.get(0))),
          startNode(3, List.of("--join", clientAddresses.get(0))));
      for (int i = 0; i < joining.size(); i++) {
        joining.get(i).awaitOutput(o -> o.contains("joined the cluster"), STEP, "n" + (i + 2) + " joins");
      }
      String cluster = String.join(",", clientAddresses);
      CliRun.await(STEP, r -> r.out().contains("3 nodes, 3 live"), "3 live nodes", "nodes", "--cluster", cluster);
      CliRun.await(STEP, r -> r.out().contains("meta voters n1,n2,n3"), "the meta range grows onto n2 and n3", "nodes",
          "--cluster", cluster);
      CliRun.await(STEP, r -> r.exit() == 0 && allRanges(r.out(), reps -> reps.size() == 3), "every range on 3 nodes",
          "ranges", "--json", "--cluster", cluster);

      // KV commands on the replicated cluster
      CliRun.ok(CliRun.of("put", "k3", "v3", "--cluster", cluster));
      CliRun.ok(CliRun.of("del", "k-gone", "--cluster", cluster));
      assertThat(CliRun.ok(CliRun.of("get", "k3", "--cluster", cluster)).out()).isEqualTo("v3\n");
      CliRun.ok(CliRun.of("split", "--at", "k5", "--cluster", cluster));
      CliRun scan = CliRun.ok(CliRun.of("scan", "--from", "k", "--to", "l", "--cluster", cluster));
      assertThat(scan.out()).startsWith("k0\tv0\nk1\tv1\n").endsWith("k9\tv9\n-- 10 entries; end of scan\n");
      CliRun ranges = CliRun.ok(CliRun.of("ranges", "--cluster", cluster));
      assertThat(ranges.out()).contains("k5").contains(", k5)");

      // a fourth node joins: the controller gives it replicas
      startNode(4, List.of("--join", clientAddresses.get(1))).awaitOutput(o -> o.contains("joined the cluster"), STEP,
          "n4 joins");
      String all = String.join(",", clientAddresses);
      CliRun.await(STEP, r -> r.out().contains("4 nodes, 4 live"), "4 live nodes", "nodes", "--cluster", all);
      CliRun.await(STEP, r -> r.exit() == 0 && anyRange(r.out(), reps -> reps.contains("n4")), "a replica moved to n4",
          "ranges", "--json", "--cluster", all);

      // a manual move: a range with 3 replicas (none mid-move), from one of them to the node it lacks; the
      // controller may be moving the same range at that moment, so a refused attempt is tried again
      String[] expected = new String[1];
      CliRun move = Await.result(STEP, Duration.ofSeconds(1), "a manual move", () -> {
        Map.Entry<Long, List<String>> range = replicas(CliRun.ok(CliRun.of("ranges", "--json", "--cluster", all)).out())
            .entrySet().stream().filter(e -> e.getValue().size() == 3).findFirst().orElse(null);
        if (range == null) {
          return null;
        }
        String from = range.getValue().get(0);
        String to = List.of("n1", "n2", "n3", "n4").stream().filter(n -> !range.getValue().contains(n)).findFirst()
            .orElseThrow();
        expected[0] = "moved r" + range.getKey() + " from " + from + " to " + to;
        return CliRun.of("move", "--range", String.valueOf(range.getKey()), "--from", from, "--to", to,
            "--cluster", all, "--timeout", "60s");
      }, r -> r != null && r.exit() == 0);
      assertThat(move).as("no range to move").isNotNull();
      assertThat(move.exit()).as(move.toString()).isZero();
      assertThat(move.out()).contains(expected[0]);
      assertThat(CliRun.ok(CliRun.of("events", "--limit", "0", "--cluster", all)).out()).contains(" move ");

      // kill the first process (it bootstrapped the cluster and its meta range): reads are still served by
      // the others, and the meta range, grown onto n2 and n3, still answers and sees n1 die
      processes.get(0).close();
      String rest = String.join(",", clientAddresses.get(1), clientAddresses.get(2), clientAddresses.get(3));
      for (int i = 0; i < 10; i++) {
        assertThat(CliRun.ok(CliRun.of("get", "k" + i, "--cluster", rest, "--timeout", "30s")).out()).isEqualTo("v" + i + "\n");
      }
      assertThat(CliRun.ok(CliRun.of("scan", "--from", "k", "--to", "l", "--cluster", rest, "--timeout", "30s")).out())
          .endsWith("-- 10 entries; end of scan\n");
      CliRun.await(STEP, r -> r.out().contains("4 nodes, 3 live"), "the meta range outlives n1 and marks it dead", "nodes",
          "--cluster", rest);

      // the killed node restarts on its data directory and is live again
      CliProcess again = CliProcess.start(dir.resolve("n1-restart.log"), nodeArgs.get(0));
      processes.add(again);
      again.awaitOutput(o -> o.contains("node n1 resumed from its data directory"), STEP, "n1 resumes");
      CliRun.await(STEP, r -> r.out().contains("4 nodes, 4 live"), "n1 live again", "nodes", "--cluster", all);
    } finally {
      for (CliProcess p : processes) {
        p.close();
      }
    }
  }

  private CliProcess startNode(int i, List<String> extra) throws Exception {
    String client = "127.0.0.1:" + NodeConfig.freePort();
    String raft = "127.0.0.1:" + NodeConfig.freePort();
    clientAddresses.add(client);
    List<String> args = new ArrayList<>(List.of("start", "--node-id", "n" + i, "--listen", client, "--raft-listen", raft,
        "--data-dir", dir.resolve("n" + i).toString(), "--insecure", "--http-addr", "127.0.0.1:" + NodeConfig.freePort(),
        "--set", "controller.tick=1000", "--set", "node.dead-timeout=6000", "--set", "merge.split-cooldown=600000"));
    args.addAll(extra);
    nodeArgs.add(List.copyOf(args));
    CliProcess p = CliProcess.start(dir.resolve("n" + i + ".log"), args);
    processes.add(p);
    return p;
  }



  static Map<Long, List<String>> replicas(String rangesJson) {
    Map<Long, List<String>> out = new LinkedHashMap<>();
    Matcher m = RANGE.matcher(rangesJson);
    while (m.find()) {
      List<String> nodes = new ArrayList<>();
      Matcher n = NODE_ID.matcher(m.group(2));
      while (n.find()) {
        nodes.add(n.group(1));
      }
      out.put(Long.parseLong(m.group(1)), nodes);
    }
    return out;
  }

  private static boolean allRanges(String json, Predicate<List<String>> p) {
    Map<Long, List<String>> map = replicas(json);
    return !map.isEmpty() && map.values().stream().allMatch(p);
  }

  private static boolean anyRange(String json, Predicate<List<String>> p) {
    return replicas(json).values().stream().anyMatch(p);
  }
}
