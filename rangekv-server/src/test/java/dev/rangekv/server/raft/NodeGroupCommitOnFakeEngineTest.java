package dev.rangekv.server.raft;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.ManualScheduler;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.split.RangeIdSource;
import dev.rangekv.server.split.SplitProposer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node-wide bound on proposals in flight ({@link ProposalBuffers.Limits#maxNodeInFlight}) over a
 * {@link FakeCluster}, n1 leading two ranges, with the buffers' timer and stall clock on the cluster's
 * clock: with a bound of one, the node never has two entries out, every write is acknowledged and the
 * ranges' writes share the slot; a range that lost its quorum holds the slot only until its proposal
 * stalls, then the other range commits again.
 */
class NodeGroupCommitOnFakeEngineTest {
  private static final long STALL_MILLIS = 100;

  @TempDir Path dir;
  private long requestId;

  private record Setup(FakeNodes nodes, ManualScheduler timer, ProposalBuffers buffers) {}

  private Setup twoRangesLedByN1() {
    FakeCluster cluster = new FakeCluster(31, FakeCluster.Faults.NONE);
    FakeNodes nodes = new FakeNodes(cluster, dir, 3);
    nodes.bootstrap();
    cluster.electLeader(1, "n1");
    cluster.run();
    FakeNodes.Node n1 = nodes.node("n1");
    RangeDescriptor d = descriptor(n1, 1);
    new SplitProposer(n1.splitHost(), n1.store(), RangeIdSource.absent(), applied -> { })
        .split(RangeHeader.newBuilder().setRangeId(1).setGeneration(d.generation()).build(),
            ByteString.copyFromUtf8("m"), 2);
    cluster.run();
    cluster.electLeader(2, "n1");
    cluster.run();
    ManualScheduler timer = new ManualScheduler(cluster::now);
    ProposalBuffers buffers = new ProposalBuffers(n1.gateway(),
        new ProposalBuffers.Limits(1, 256, 1 << 20, 1, STALL_MILLIS), timer, () -> cluster.now() * 1_000_000);
    return new Setup(nodes, timer, buffers);
  }

  @Test
  void withABoundOfOne_theNodeNeverHasTwoEntriesOut_andEveryWriteIsAcknowledged() {
    Setup s = twoRangesLedByN1();
    try (FakeNodes nodes = s.nodes()) {
      FakeCluster cluster = nodes.cluster();
      List<CompletableFuture<CommandResult>> writes = new ArrayList<>();
      for (int round = 0; round < 10; round++) {
        for (String key : List.of("a" + round, "b" + round, "x" + round, "y" + round)) {
          writes.add(s.buffers().write(put(nodes.node("n1"), key)));
          assertThat(cluster.uncommitted(1) + cluster.uncommitted(2)).as("entries out on n1").isLessThanOrEqualTo(1);
        }
        cluster.run();
        s.timer().runDue();
      }
      cluster.run();

      assertThat(writes).allSatisfy(f -> {
        assertThat(f).isCompleted();
        assertThat(f.join().getBatch().getSucceeded()).isTrue();
      });
      int entries = cluster.committed(1).size() + cluster.committed(2).size();
      assertThat(entries).as("writes grouped into fewer entries than writes").isLessThan(writes.size());
      assertThat(s.buffers().idle(1)).isTrue();
      assertThat(s.buffers().idle(2)).isTrue();
    }
  }

  @Test
  void aRangeWithoutItsQuorum_holdsTheSlotOnlyUntilItsProposalStalls() {
    Setup s = twoRangesLedByN1();
    try (FakeNodes nodes = s.nodes()) {
      FakeCluster cluster = nodes.cluster();
      nodes.node("n2").engine().close(2);
      nodes.node("n3").engine().close(2); // range 2 keeps its leader but can commit nothing
      CompletableFuture<CommandResult> stuck = s.buffers().write(put(nodes.node("n1"), "x1"));
      CompletableFuture<CommandResult> waiting = s.buffers().write(put(nodes.node("n1"), "a1"));
      cluster.run();
      s.timer().runDue();
      assertThat(stuck).isNotDone();
      assertThat(waiting).as("range 1 waits for the node's one slot").isNotDone();
      assertThat(cluster.uncommitted(1)).isZero();

      cluster.advance(STALL_MILLIS);
      s.timer().runDue(); // the tick at the stall deadline releases range 1
      cluster.run();

      assertThat(waiting).as("range 1 released once range 2's proposal stalled").isCompleted();
      assertThat(waiting.join().getBatch().getSucceeded()).isTrue();
      assertThat(stuck).as("range 2 still has no quorum").isNotDone();
      CompletableFuture<CommandResult> next = s.buffers().write(put(nodes.node("n1"), "b1"));
      cluster.run();
      assertThat(next).as("range 1 keeps committing").isCompleted();
      assertThat(next.join().getBatch().getSucceeded()).isTrue();
    }
  }

  private static RangeDescriptor descriptor(FakeNodes.Node n, long rangeId) {
    return n.directory().replica(rangeId).flatMap(RangeReplica::descriptor).orElseThrow();
  }

  private BatchRequest put(FakeNodes.Node via, String key) {
    Key k = Key.utf8(key);
    RangeDescriptor d = via.directory().replicas().stream().map(RangeReplica::descriptor).flatMap(Optional::stream)
        .filter(r -> r.contains(k)).findFirst().orElseThrow();
    return BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()))
        .setWriteId(WriteId.newBuilder().setClientId(ByteString.copyFrom(new byte[16])).setRequestId(++requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v-" + key))))
        .build();
  }
}
