package dev.rangekv.server.raft;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.ClientWrites;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.replica.RangeReplica;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader of term T that stepped down asks its replica what became of client writes it had proposed:
 * once the replica applied an entry of a later term, a write applied meanwhile is handed over with its
 * recorded result, and one the next leader never had is definitely not applied.
 */
class HandOverOnFakeEngineTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[] {7, 7, 7, 7});

  @TempDir Path dir;

  @Test
  void afterTheNextTermApplied_anAppliedWriteIsHandedOver_andAMissingOneIsNotApplied() throws Exception {
    FakeCluster cluster = new FakeCluster(1, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      FakeNodes.Node old = nodes.leaderOf(1);
      long term = old.engine().status(1).map(GroupStatus::currentTerm).orElseThrow();
      RangeReplica replica = old.directory().replica(1).orElseThrow();
      ClientWrites applied = writes(old, 1, "a");
      var first = old.gateway().propose(1, RangeCommand.newBuilder().setWrites(applied).build());
      cluster.run();
      CommandResult answered = first.get(5, TimeUnit.SECONDS);

      var applying = HandOver.settle(replica, term, applied);
      var missing = HandOver.settle(replica, term, writes(old, 2, "b"));
      assertThat(applying).as("nothing of a later term applied yet").isNotDone();

      String next = nodes.all().stream().map(FakeNodes.Node::id).filter(id -> !id.equals(old.id())).findFirst()
          .orElseThrow();
      cluster.electLeader(1, next);
      cluster.run();
      FakeNodes.Node leader = nodes.node(next);
      leader.gateway().propose(1, RangeCommand.newBuilder().setWrites(writes(leader, 3, "c")).build());
      cluster.run();

      assertThat(applying.get(5, TimeUnit.SECONDS)).isEqualTo(new HandOver.Outcome.Applied(answered));
      assertThat(missing.get(5, TimeUnit.SECONDS)).isEqualTo(new HandOver.Outcome.NotApplied());
    }
  }

  @Test
  void withoutALaterTerm_theOutcomeStaysUnknown() throws Exception {
    FakeCluster cluster = new FakeCluster(2, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      FakeNodes.Node leader = nodes.leaderOf(1);
      long term = leader.engine().status(1).map(GroupStatus::currentTerm).orElseThrow();
      var outcome = HandOver.settle(leader.directory().replica(1).orElseThrow(), term, writes(leader, 1, "a"));
      assertThat(outcome.get(HandOver.BOUND.toMillis() + 5_000, TimeUnit.MILLISECONDS))
          .isEqualTo(new HandOver.Outcome.Unknown());
    }
  }

  private static ClientWrites writes(FakeNodes.Node via, long requestId, String key) {
    RangeDescriptor d = via.directory().replica(1).flatMap(RangeReplica::descriptor).orElseThrow();
    return ClientWrites.newBuilder().addWrites(BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(d.generation()))
        .setWriteId(WriteId.newBuilder().setClientId(CLIENT).setRequestId(requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v-" + key)))))
        .build();
  }
}
