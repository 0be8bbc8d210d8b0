package dev.rangekv.server.move;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplicaChanges} on a range of three of four nodes of a {@link FakeCluster}: the membership change
 * and the recorded replica set, leadership transfers, and the refusals and aborts, without a cluster.
 * Calls to other nodes (prepare, drop) reach them in process ({@link InProcessReplicaPeers}); the
 * replace of a replica is in {@code ReplaceReplicaOnFakeEngineTest}.
 */
class ReplicaChangesOnFakeEngineTest {
  @TempDir Path dir;
  private FakeNodes nodes;
  private PeerChannels channels;
  private ReplicaChanges changes;
  private FakeNodes.Node leader;

  @BeforeEach
  void start() {
    FakeCluster cluster = new FakeCluster(7, FakeCluster.Faults.NONE);
    nodes = new FakeNodes(cluster, dir, 4);
    nodes.bootstrap(3); // n4 holds no replica: a replica can be added there
    cluster.electLeader(1, "n1");
    cluster.run();
    leader = nodes.node("n1");
    channels = PeerChannels.ofCluster("");
    LocalReplicas local = new LocalReplicas(leader.engine(), leader.store(), leader.directory(),
        new SpanFetcher(leader.store(), leader.directory(), channels, dir.resolve("transfers"), Runnable::run),
        leader.replica());
    changes = new ReplicaChanges(leader.engine(), leader.gateway(), leader.directory(),
        new InProcessReplicaPeers(nodes, dir.resolve("peers")), local, Runnable::run, MoveOptions.defaults());
  }

  @AfterEach
  void stop() {
    channels.close();
    nodes.close();
  }

  private RangeHeader header() {
    RangeDescriptor d = leader.directory().replica(1).flatMap(RangeReplica::descriptor).orElseThrow();
    return RangeHeader.newBuilder().setRangeId(1).setGeneration(d.generation()).build();
  }

  private <T> T settle(CompletableFuture<T> f) throws Exception {
    nodes.cluster().run();
    return f.get(20, TimeUnit.SECONDS);
  }

  @Test
  void remove_changesTheMembership_thenRecordsTheSmallerSetAtTheNextGeneration() throws Exception {
    long before = header().getGeneration();
    RangeDescriptorProto next = settle(changes.remove(RemoveReplicaRequest.newBuilder().setHeader(header())
        .setNodeId("n3").build()));

    assertThat(next.getGeneration()).isEqualTo(before + 1);
    assertThat(next.getReplicasList()).extracting(r -> r.getNodeId()).containsExactly("n1", "n2");
    assertThat(leader.engine().status(1).orElseThrow().memberIds()).containsExactly("n1", "n2");
    for (String n : List.of("n1", "n2")) {
      assertThat(nodes.node(n).directory().replica(1).flatMap(RangeReplica::descriptor).orElseThrow().replicas())
          .as("descriptor on %s", n).containsExactly("n1", "n2");
    }
    assertThat(nodes.node("n3").directory().replica(1)).as("the removed replica dropped").isEmpty();
    assertThat(nodes.node("n3").store().rangeState(1)).isEmpty();
  }

  @Test
  void remove_ofTheLeaderItself_isRefusedBeforeAnythingChanges() {
    CompletableFuture<RangeDescriptorProto> f = changes.remove(RemoveReplicaRequest.newBuilder().setHeader(header())
        .setNodeId("n1").build());
    nodes.cluster().run();

    assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasRootCauseInstanceOf(RangeKvException.class).hasMessageContaining("transfer leadership first");
    assertThat(leader.engine().status(1).orElseThrow().memberIds()).containsExactly("n1", "n2", "n3");
  }

  @Test
  void transfer_movesTheLeadership_andEndsTheGatewaysTransfer() throws Exception {
    String to = settle(changes.transfer(TransferLeaderRequest.newBuilder().setHeader(header()).setNodeId("n2").build()));

    assertThat(to).isEqualTo("n2");
    assertThat(nodes.cluster().leaderOf(1)).isEqualTo("n2");
    assertThat(leader.gateway().transferring(1)).isFalse();
    assertThat(leader.gateway().leaderOrRefusal(1)).hasValueSatisfying(e ->
        assertThat(e.getNotLeader().getLeaderNodeId()).isEqualTo("n2"));
  }

  @Test
  void transfer_toAReplicaThatIsNotCaughtUp_failsAndLeavesTheLeaderServing() throws Exception {
    nodes.node("n3").engine().close(1);
    CompletableFuture<String> f = changes.transfer(TransferLeaderRequest.newBuilder().setHeader(header())
        .setNodeId("n3").build());
    nodes.cluster().run();

    assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).hasRootCauseInstanceOf(RangeKvException.class);
    assertThat(nodes.cluster().leaderOf(1)).isEqualTo("n1");
    assertThat(leader.gateway().transferring(1)).isFalse();
    assertThat(leader.gateway().leaderOrRefusal(1)).isEmpty();
  }

  @Test
  void add_whosePrepareFails_isRefusedAsNotApplied_andKeepsTheMembers() {
    CompletableFuture<RangeDescriptorProto> f = changes.add(AddReplicaRequest.newBuilder().setHeader(header())
        .setAddress("127.0.0.1:9").build()); // no node of the test: nothing listens there

    assertThatThrownBy(() -> f.get(20, TimeUnit.SECONDS)).hasRootCauseInstanceOf(RangeKvException.class)
        .satisfies(e -> assertThat(((RangeKvException) rootCause(e)).error().getDefinitelyNotApplied()).isTrue());
    nodes.cluster().run();
    assertThat(leader.engine().status(1).orElseThrow().memberIds()).containsExactly("n1", "n2", "n3");
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
