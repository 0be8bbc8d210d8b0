package dev.rangekv.cli.process;

import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import static org.assertj.core.api.Assertions.assertThat;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.cli.CliRun;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.meta.RegisterNodeRequest;
import dev.rangekv.proto.replica.FetchSpanRequest;
import dev.rangekv.proto.replica.ReplicaServiceGrpc;
import dev.rangekv.proto.tls.TlsFiles;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.security.NodeTls;
import dev.rangekv.testkit.Await;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secure cluster of {@code rangekv start --certs-dir} processes with certificates made by {@code rangekv
 * cert}: KV through the CLI and the Java client; a plaintext client, a client of a self-made CA and a user
 * without the admin role are refused (the last still reads and writes); a forged node (another CA) and a
 * user certificate reach no internal service and no Raft port; a plaintext Raft peer is refused; split,
 * move and merge run secure.
 */
@Timeout(420)
class SecureClusterProcessIT {
  private static final Duration STEP = Duration.ofSeconds(90);

  @TempDir
  Path dir;

  private final List<CliProcess> processes = new ArrayList<>();
  private final List<String> clientAddresses = new ArrayList<>();
  private final List<String> raftAddresses = new ArrayList<>();

  @Test
  void aSecureCluster_servesItsCertificates_andRefusesEveryoneElse() throws Exception {
    Path certs = dir.resolve("certs");
    Path forged = dir.resolve("forged");
    for (Path d : List.of(certs, forged)) {
      CliRun.ok(CliRun.of("cert", "create-ca", "--certs-dir", d.toString()));
      CliRun.ok(CliRun.of("cert", "create-node", "127.0.0.1", "localhost", "--certs-dir", d.toString()));
      CliRun.ok(CliRun.of("cert", "create-client", "root", "--certs-dir", d.toString()));
    }
    CliRun.ok(CliRun.of("cert", "create-client", "alice", "--certs-dir", certs.toString()));
    assertThat(CliRun.of("cert", "create-client", "node", "--certs-dir", certs.toString()).err())
        .contains("'node' is reserved for nodes");
    try {
      CliProcess n1 = startNode(1, certs, List.of());
      n1.awaitOutput(o -> o.contains("bootstrapped a new cluster"), STEP, "n1 bootstraps");
      String first = clientAddresses.get(0);
      for (int i = 0; i < 10; i++) {
        CliRun.ok(cli(certs, "put", "k" + i, "v" + i, "--cluster", first));
      }
      // n2 and n3 start together (as an operator starts them), so their JVM start-ups overlap
      List<CliProcess> joining = List.of(startNode(2, certs, List.of("--join", first)),
          startNode(3, certs, List.of("--join", first)));
      for (int i = 0; i < joining.size(); i++) {
        joining.get(i).awaitOutput(o -> o.contains("joined the cluster"), STEP, "n" + (i + 2) + " joins over TLS");
      }
      String cluster = String.join(",", clientAddresses);
      CliRun.await(STEP, r -> r.out().contains("3 nodes, 3 live"), "3 live nodes", "nodes", "--cluster", cluster,
          "--certs-dir", certs.toString());
      CliRun.await(STEP, r -> r.exit() == 0 && ClusterProcessesIT.replicas(r.out()).values().stream()
          .allMatch(reps -> reps.size() == 3), "every range on 3 nodes (Raft over TLS)", "ranges", "--json",
          "--cluster", cluster, "--certs-dir", certs.toString());

      // KV through the CLI and the Java client
      CliRun.ok(cli(certs, "put", "k3", "v3b", "--cluster", cluster));
      assertThat(CliRun.ok(cli(certs, "get", "k3", "--cluster", cluster)).out()).isEqualTo("v3b\n");
      try (RangeKvClient client = RangeKvClient.connect(clientAddresses,
          ClientOptions.defaults().withTls(TlsFiles.client(certs, "root")))) {
        client.put(Key.of("java".getBytes(StandardCharsets.UTF_8)), "client".getBytes(StandardCharsets.UTF_8));
        assertThat(client.get(Key.of("k1".getBytes(StandardCharsets.UTF_8))))
            .hasValueSatisfying(v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("v1"));
      }
      assertThat(CliRun.ok(cli(certs, "get", "java", "--cluster", cluster)).out()).isEqualTo("client\n");

      // refused clients: plaintext, a self-made CA; a user without the admin role reads and writes only
      CliRun plain = CliRun.of("get", "k1", "--cluster", cluster, "--insecure", "--timeout", "5s");
      assertRefused(plain, "--certs-dir");
      CliRun stranger = CliRun.of("get", "k1", "--cluster", cluster, "--certs-dir", forged.toString(), "--timeout", "5s");
      assertRefused(stranger, "TLS handshake failed");
      CliRun.ok(CliRun.of("put", "a1", "alice", "--cluster", cluster, "--certs-dir", certs.toString(), "--user", "alice"));
      assertThat(CliRun.ok(CliRun.of("get", "a1", "--cluster", cluster, "--certs-dir", certs.toString(), "--user", "alice"))
          .out()).isEqualTo("alice\n");
      CliRun aliceSplit = CliRun.of("split", "--at", "k7", "--cluster", cluster, "--certs-dir", certs.toString(),
          "--user", "alice");
      assertRefused(aliceSplit, "PERMISSION_DENIED", "admin role");
      assertThat(CliRun.ok(cli(certs, "ranges", "--cluster", cluster)).out()).doesNotContain("k7");

      // internal services: a forged node fails the handshake; a user certificate of this CA is no node
      refusesInternalCalls(TlsFiles.node(forged), Status.Code.UNAVAILABLE);
      refusesInternalCalls(TlsFiles.client(certs, "alice"), Status.Code.PERMISSION_DENIED);
      // Raft: only node certificates of this CA; plaintext refused (a real node's certificate is let in)
      assertThat(raftGroups(Optional.of(TlsFiles.node(certs)))).as("a node lists the groups").isNotEmpty();
      for (Optional<TlsFiles> who : List.of(Optional.of(TlsFiles.node(forged)), Optional.of(TlsFiles.client(certs, "alice")),
          Optional.<TlsFiles>empty())) {
        assertThatThrownBy(() -> raftGroups(who)).as("raft port refuses " + who).isInstanceOf(Exception.class);
        assertThatThrownBy(() -> joinGroup(who)).as("no group is created for " + who).isInstanceOf(Exception.class);
      }

      // split, move, merge over TLS
      CliRun.ok(cli(certs, "split", "--at", "k5", "--cluster", cluster));
      assertThat(CliRun.ok(cli(certs, "ranges", "--cluster", cluster)).out()).contains(", k5)");
      startNode(4, certs, List.of("--join", clientAddresses.get(1))).awaitOutput(o -> o.contains("joined the cluster"),
          STEP, "n4 joins");
      String all = String.join(",", clientAddresses);
      CliRun.await(STEP, r -> r.out().contains("4 nodes, 4 live"), "4 live nodes", "nodes", "--cluster", all,
          "--certs-dir", certs.toString());
      CliRun move = moveOneRange(certs, all);
      assertThat(move.exit()).as(move.toString()).isZero();
      Map<Long, List<String>> ranges = ClusterProcessesIT.replicas(
          CliRun.ok(cli(certs, "ranges", "--json", "--cluster", all)).out());
      long left = ranges.keySet().iterator().next();
      // the controller may be moving one of the two ranges: a refused merge is tried again
      CliRun merge = Await.result(STEP, Duration.ofSeconds(1), "merge r" + left,
          () -> cli(certs, "merge", "--range", String.valueOf(left), "--cluster", all, "--timeout", "60s"),
          r -> r.exit() == 0);
      assertThat(merge.exit()).as(merge.toString()).isZero();
      for (int i = 0; i < 10; i++) {
        assertThat(CliRun.ok(cli(certs, "get", "k" + i, "--cluster", all)).out()).isEqualTo(i == 3 ? "v3b\n" : "v" + i + "\n");
      }
      String log = processes.get(0).output();
      assertThat(log).contains("refused a call").doesNotContain("\tat io.grpc");
    } finally {
      for (CliProcess p : processes) {
        p.close();
      }

    }
  }

  private static CliRun cli(Path certs, String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--certs-dir";
    all[args.length + 1] = certs.toString();
    return CliRun.of(all);
  }

  private static void assertRefused(CliRun r, String... parts) {
    assertThat(r.exit()).as(r.toString()).isEqualTo(1);
    assertThat(r.err().lines().toList()).as(r.toString()).hasSize(1);
    assertThat(r.err()).as(r.toString()).contains(parts);
  }

  /** Registration, heartbeats and span fetches as {@code who}, each refused with {@code code}. */
  private void refusesInternalCalls(TlsFiles who, Status.Code code) {
    String target = clientAddresses.get(0);
    NodeRecord fake = NodeRecord.newBuilder().setNodeId("evil").setAddress("127.0.0.1:1").setRaftAddress("127.0.0.1:2").build();
    try (PeerChannels channels = new PeerChannels(16 << 20, Optional.of(NodeTls.clientContext(who)))) {
      MetaNodeServiceGrpc.MetaNodeServiceBlockingStub meta = MetaNodeServiceGrpc.newBlockingStub(channels.channel(target))
          .withDeadlineAfter(10, TimeUnit.SECONDS);
      assertThatThrownBy(() -> meta.registerNode(RegisterNodeRequest.newBuilder().setNode(fake).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
      assertThatThrownBy(() -> meta.heartbeat(HeartbeatRequest.newBuilder().setNode(fake).build()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
      ReplicaServiceGrpc.ReplicaServiceBlockingStub replica = channels.replicaService(target, Duration.ofSeconds(10));
      assertThatThrownBy(() -> replica.fetchSpan(FetchSpanRequest.newBuilder().setRangeId(1).build()).hasNext())
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    }
    assertThat(CliRun.ok(CliRun.of("nodes", "--cluster", target, "--certs-dir", dir.resolve("certs").toString())).out())
        .doesNotContain("evil");
  }

  private RaftClient raftClient(Optional<TlsFiles> who) {
    RaftPeer peer = RaftPeer.newBuilder().setId(RaftPeerId.valueOf("n1")).setAddress(raftAddresses.get(0)).build();
    Parameters parameters = who.map(f -> dev.rangekv.server.ratis.RatisTls.parameters(NodeTls.load(f).files()))
        .orElseGet(Parameters::new);
    return RaftClient.newBuilder().setProperties(new RaftProperties()).setParameters(parameters)
        .setRaftGroup(RaftGroup.valueOf(RaftGroupId.randomId(), peer)).setLeaderId(peer.getId())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(2,
            org.apache.ratis.util.TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
        .build();
  }

  private List<RaftGroupId> raftGroups(Optional<TlsFiles> who) throws Exception {
    try (RaftClient c = raftClient(who)) {
      return c.getGroupManagementApi(RaftPeerId.valueOf("n1")).list().getGroupIds();
    }
  }

  private void joinGroup(Optional<TlsFiles> who) throws Exception {
    RaftPeer self = RaftPeer.newBuilder().setId(RaftPeerId.valueOf("n1")).setAddress(raftAddresses.get(0)).build();
    try (RaftClient c = raftClient(who)) {
      c.getGroupManagementApi(self.getId()).add(RaftGroup.valueOf(RaftGroupId.randomId(), self));
    }
  }

  private CliRun moveOneRange(Path certs, String all) {
    // polling for a range the controller is not moving itself: a refused move is tried again
    return Await.result(STEP, Duration.ofSeconds(1), "a manual move", () -> {
      Map.Entry<Long, List<String>> range = ClusterProcessesIT.replicas(
          CliRun.ok(cli(certs, "ranges", "--json", "--cluster", all)).out())
          .entrySet().stream().filter(e -> e.getValue().size() == 3).findFirst().orElse(null);
      if (range == null) {
        return null;
      }
      String from = range.getValue().get(0);
      String to = List.of("n1", "n2", "n3", "n4").stream().filter(n -> !range.getValue().contains(n)).findFirst()
          .orElseThrow();
      return cli(certs, "move", "--range", String.valueOf(range.getKey()), "--from", from, "--to", to,
          "--cluster", all, "--timeout", "60s");
    }, r -> r != null && r.exit() == 0);
  }

  private CliProcess startNode(int i, Path certs, List<String> extra) throws Exception {
    String client = "127.0.0.1:" + NodeConfig.freePort();
    String raft = "127.0.0.1:" + NodeConfig.freePort();
    clientAddresses.add(client);
    raftAddresses.add(raft);
    List<String> args = new ArrayList<>(List.of("start", "--node-id", "n" + i, "--listen", client, "--raft-listen", raft,
        "--data-dir", dir.resolve("n" + i).toString(), "--certs-dir", certs.toString(),
        "--http-addr", "127.0.0.1:" + NodeConfig.freePort(),
        "--set", "controller.tick=1000", "--set", "node.dead-timeout=6000", "--set", "merge.split-cooldown=600000"));
    args.addAll(extra);
    CliProcess p = CliProcess.start(dir.resolve("n" + i + ".log"), args);
    processes.add(p);
    return p;
  }
}
