package dev.rangekv.server.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.replica.RangeKvException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway and the proposal buffers over a {@link FakeCluster}: who may propose, how each engine
 * outcome reaches the caller as a typed error, and writes grouped into one entry while one is in flight.
 */
class RaftGatewayOnFakeEngineTest {
  @TempDir Path dir;
  private FakeNodes nodes;

  @BeforeEach
  void start() {
    nodes = new FakeNodes(new FakeCluster(11, FakeCluster.Faults.NONE), dir, 3);
    nodes.bootstrap();
    nodes.cluster().electLeader(1, "n1");
    nodes.cluster().run();
  }

  @AfterEach
  void stop() {
    nodes.close();
  }

  private static BatchRequest put(String key, long requestId) {
    return BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(0))
        .setWriteId(WriteId.newBuilder().setClientId(ByteString.copyFrom(new byte[16])).setRequestId(requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v"))))
        .build();
  }

  private static RangeKvError errorOf(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RangeKvException rke) {
        return rke.error();
      }
    }
    throw new AssertionError("not a typed failure: " + f);
  }

  @Test
  void aFollower_refusesAWrite_namingTheLeaderAndItsAddress() {
    RangeKvError e = errorOf(nodes.node("n2").proposals().write(put("a", 1)));

    assertThat(e.getNotLeader().getLeaderNodeId()).isEqualTo("n1");
    assertThat(e.getNotLeader().getLeaderAddress()).isEqualTo(FakeNodes.UNREACHABLE);
    assertThat(e.getDefinitelyNotApplied()).isTrue();
  }

  @Test
  void aNodeWithoutTheRangesGroup_answersRangeNotFound() {
    nodes.node("n3").engine().destroy(1);

    assertThat(nodes.node("n3").gateway().leaderOrRefusal(1)).hasValueSatisfying(e ->
        assertThat(e.hasRangeNotFound()).isTrue());
  }

  @Test
  void writesArrivingWhileAnEntryIsInFlight_goIntoTheNextEntryTogether() {
    ProposalBuffers proposals = nodes.node("n1").proposals();
    CompletableFuture<CommandResult> first = proposals.write(put("a", 1));
    CompletableFuture<CommandResult> second = proposals.write(put("b", 2));
    CompletableFuture<CommandResult> third = proposals.write(put("c", 3));
    nodes.cluster().run();

    assertThat(first.join().getBatch().getSucceeded()).isTrue();
    assertThat(second.join().getBatch().getSucceeded()).isTrue();
    assertThat(third.join().getBatch().getSucceeded()).isTrue();
    // one entry for the first write, one for the two that waited behind it
    assertThat(nodes.cluster().committed(1)).hasSize(2);
    assertThat(nodes.cluster().committed(1).get(1).getWrites().getWritesCount()).isEqualTo(2);
    assertThat(proposals.idle(1)).isTrue();
  }

  @Test
  void aProposalWhoseLeaderLosesTheLeadership_failsWithAnUnknownOutcome() {
    CompletableFuture<CommandResult> f = nodes.node("n1").proposals().write(put("a", 1));
    nodes.node("n1").engine().close(1); // the leader goes before the entry committed

    RangeKvError e = errorOf(f);
    assertThat(e.hasNotLeader()).isTrue();
    assertThat(e.getDefinitelyNotApplied()).isFalse();
  }

  @Test
  void writesQueuedBehindAnEntryWhoseLeaderGoes_areRefusedAsNotApplied_andTheNewLeaderTakesWrites() {
    ProposalBuffers proposals = nodes.node("n1").proposals();
    CompletableFuture<CommandResult> inFlight = proposals.write(put("a", 1));
    CompletableFuture<CommandResult> queued = proposals.write(put("b", 2));
    nodes.node("n1").engine().close(1); // the leader goes before either reached a follower
    nodes.cluster().run();

    assertThat(errorOf(inFlight).getDefinitelyNotApplied()).as("the entry in flight: outcome unknown").isFalse();
    assertThat(errorOf(queued).getDefinitelyNotApplied()).as("the write never proposed").isTrue();
    assertThat(proposals.idle(1)).isTrue();
    String leader = nodes.cluster().leaderOf(1);
    assertThat(leader).isIn("n2", "n3");
    CompletableFuture<CommandResult> after = nodes.node(leader).proposals().write(put("c", 3));
    nodes.cluster().run();
    assertThat(after.join().getBatch().getSucceeded()).isTrue();
    // the entry in flight was held by its closed leader alone: it must not commit (the outcome the
    // caller saw stays unknown); the refused write must not be there, the new one must
    List<String> committed = nodes.cluster().committed(1).stream()
        .flatMap(c -> c.getWrites().getWritesList().stream())
        .flatMap(w -> w.getMutationsList().stream()).map(m -> m.getPut().getKey().toStringUtf8()).toList();
    assertThat(committed).contains("c").doesNotContain("a", "b");
  }
}
