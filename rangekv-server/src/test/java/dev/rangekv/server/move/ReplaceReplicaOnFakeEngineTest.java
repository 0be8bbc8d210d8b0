package dev.rangekv.server.move;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.GroupEvents;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replace of a replica ({@link ReplicaChanges#add} naming the replica it replaces) on four nodes of
 * a {@link FakeCluster}, the range on three: the new node prepares an empty replica that installs the
 * leader's span and catches up, the members swap in one change, the new set is recorded once, the
 * replaced replica is dropped, and the voters never number four. Seeded with drops and delays and writes
 * before and during the replace, against the acknowledged writes.
 */
class ReplaceReplicaOnFakeEngineTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[16]);

  @TempDir Path dir;
  private long requestId;

  private enum Outcome { ACKED, NOT_APPLIED, UNKNOWN }

  @Test
  void replace_swapsTheReplicasInOneChange_theNewOneHoldsTheData_andThereAreNeverFourVoters() {
    Property.named("replace a replica").cases(8).sizes(5, 40).check(this::replaceCase);
  }

  private void replaceCase(Gen gen) throws Exception {
    FakeCluster cluster = new FakeCluster(gen.nextLong(), new FakeCluster.Faults(0.1, 20, 0));
    Path where = Files.createTempDirectory(dir, "case");
    try (FakeNodes nodes = new FakeNodes(cluster, where, 4)) {
      nodes.bootstrap(3);
      cluster.electLeader(1, "n1");
      cluster.run();
      FakeNodes.Node leader = nodes.node("n1");
      List<Integer> voterCounts = new ArrayList<>();
      for (FakeNodes.Node n : nodes.all()) {
        n.engine().addListener(new GroupEvents() {
          @Override
          public void configurationApplied(long rangeId, List<Member> members, List<Member> previous) {
            voterCounts.add(members.size());
          }
        });
      }
      ReplicaChanges changes = new ReplicaChanges(leader.engine(), leader.gateway(), leader.directory(),
          new InProcessReplicaPeers(nodes, where.resolve("peers")),
          new LocalReplicas(leader.engine(), leader.store(), leader.directory(), null, leader.replica()),
          Runnable::run, MoveOptions.defaults());
      Map<String, CompletableFuture<CommandResult>> sent = new LinkedHashMap<>();
      for (int i = gen.size(); i > 0; i--) {
        sent.put("before" + i, put(leader, "before" + i));
      }
      cluster.run();
      long generation = descriptor(leader).generation();

      String replaced = gen.chance(0.5) ? "n2" : "n3";
      CompletableFuture<RangeDescriptorProto> done = changes.add(AddReplicaRequest.newBuilder()
          .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(generation))
          .setAddress(FakeNodes.clientAddress("n4")).setReplacingNodeId(replaced).build());
      for (int i = gen.size(); i > 0; i--) {
        sent.put("during" + i, put(leader, "during" + i));
        if (gen.chance(0.3)) {
          assertThat(leader.engine().status(1).orElseThrow().members()).as("voters while replacing").hasSizeLessThan(4);
          cluster.run();
        }
      }
      cluster.run();

      RangeDescriptorProto next = done.join();
      List<String> expected = new ArrayList<>(List.of("n1", "n2", "n3"));
      expected.remove(replaced);
      expected.add("n4");
      assertThat(next.getGeneration()).as("one recorded change").isEqualTo(generation + 1);
      assertThat(next.getReplicasList()).extracting(r -> r.getNodeId()).containsExactlyElementsOf(expected);
      assertThat(leader.engine().status(1).orElseThrow().memberIds()).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(voterCounts).as("voters in every configuration applied").isNotEmpty().allMatch(c -> c <= 3);
      assertThat(nodes.node(replaced).directory().replica(1)).as("the replaced replica dropped").isEmpty();
      assertThat(nodes.node(replaced).store().rangeState(1)).isEmpty();

      sent.put("after", put(leader, "after"));
      cluster.run();
      Map<String, String> stored = scan(leader);
      for (String id : expected) {
        assertThat(scan(nodes.node(id))).as("data on %s", id).isEqualTo(stored);
        assertThat(descriptor(nodes.node(id)).replicas()).as("descriptor on %s", id).containsExactlyElementsOf(expected);
      }
      sent.forEach((key, f) -> {
        Outcome o = outcome(f);
        if (o == Outcome.ACKED) {
          assertThat(stored).as("acknowledged %s", key).containsKey(key);
        } else if (o == Outcome.NOT_APPLIED) {
          assertThat(stored).as("refused %s", key).doesNotContainKey(key);
        }
      });
      assertThat(sent.keySet()).as("no key nobody wrote").containsAll(stored.keySet());
      assertThat(outcome(sent.get("after"))).isEqualTo(Outcome.ACKED);
    }
  }

  private static RangeDescriptor descriptor(FakeNodes.Node n) {
    return n.directory().replica(1).flatMap(RangeReplica::descriptor).orElseThrow();
  }

  private CompletableFuture<CommandResult> put(FakeNodes.Node via, String key) {
    RangeDescriptor d = descriptor(via);
    return via.proposals().write(BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(d.generation()))
        .setWriteId(WriteId.newBuilder().setClientId(CLIENT).setRequestId(++requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v-" + key))))
        .build());
  }

  private static Outcome outcome(CompletableFuture<CommandResult> f) {
    assertThat(f).as("every write answered").isDone();
    try {
      CommandResult r = f.join();
      return r.hasBatch() && r.getBatch().getSucceeded() ? Outcome.ACKED : Outcome.NOT_APPLIED;
    } catch (CompletionException e) {
      if (e.getCause() instanceof RangeKvException rke) {
        return rke.error().getDefinitelyNotApplied() ? Outcome.NOT_APPLIED : Outcome.UNKNOWN;
      }
      throw e;
    }
  }

  private static Map<String, String> scan(FakeNodes.Node n) {
    Map<String, String> out = new LinkedHashMap<>();
    for (KeyValue kv : n.store().scan(Key.EMPTY, RangeEnd.INFINITY, 100_000, false)) {
      out.put(new String(kv.key().toByteArray(), StandardCharsets.UTF_8), new String(kv.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}
