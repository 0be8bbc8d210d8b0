package dev.rangekv.server.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.split.RangeIdSource;
import dev.rangekv.server.split.SplitHost;
import dev.rangekv.server.split.SplitProposer;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client writes through each node's proposal buffers (group commit) and one split proposed on the leader,
 * on three nodes of a {@link FakeCluster} that drops and delays messages and changes leaders: every
 * replica ends with the same data and descriptors; every acknowledged write is there, every write refused
 * as definitely not applied is not, and nothing else is (each write puts its own key). Seeded: a failure
 * names the seed, {@code -Drangekv.seed=N} replays it.
 */
class ReplicatedWritesPropertyTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[16]);
  private static final Key SPLIT_KEY = Key.utf8("m");

  @TempDir Path dir;

  private enum Outcome { ACKED, NOT_APPLIED, UNKNOWN }

  @Test
  void writesAndASplit_onAFaultyEngine_convergeToTheAcknowledgedHistory() {
    Property.named("replicated writes and a split").cases(10).sizes(10, 80).check(this::runCase);
  }

  private void runCase(Gen gen) throws Exception {
    FakeCluster cluster = new FakeCluster(gen.nextLong(), new FakeCluster.Faults(0.1, 20, 0.01));
    try (FakeNodes nodes = new FakeNodes(cluster, Files.createTempDirectory(dir, "case"), 3)) {
      nodes.bootstrap();
      int writes = gen.size();
      int splitAt = gen.nextInt(writes);
      Map<String, CompletableFuture<CommandResult>> sent = new LinkedHashMap<>();
      CompletableFuture<?> split = null;
      for (int i = 0; i < writes; i++) {
        if (i == splitAt) {
          split = split(nodes);
          cluster.run();
        }
        FakeNodes.Node via = gen.chance(0.9) || cluster.leaderOf(1).isEmpty()
            ? leaderOrAny(nodes, gen) : gen.pick(nodes.all());
        String key = (char) ('a' + gen.nextInt(26)) + String.format("%04d", i);
        sent.put(key, via.proposals().write(write(via, key, i)));
        if (gen.chance(0.3)) {
          cluster.run();
        }
      }
      cluster.run();
      assertThat(split).isNotNull();
      assertThat(split.isDone()).as("the split's proposal completed").isTrue();
      Map<String, Outcome> outcomes = new LinkedHashMap<>();
      sent.forEach((key, f) -> outcomes.put(key, outcome(f)));

      Map<String, String> stored = scan(nodes.all().get(0));
      for (FakeNodes.Node n : nodes.all()) {
        assertThat(scan(n)).as("data on %s", n.id()).isEqualTo(stored);
        assertThat(n.store().rangeState(1).map(s -> s.descriptor()))
            .isEqualTo(nodes.all().get(0).store().rangeState(1).map(s -> s.descriptor()));
        assertThat(n.store().rangeState(2).map(s -> s.descriptor()))
            .isEqualTo(nodes.all().get(0).store().rangeState(2).map(s -> s.descriptor()));
      }
      outcomes.forEach((key, o) -> {
        if (o == Outcome.ACKED) {
          assertThat(stored).as("acknowledged %s", key).containsEntry(key, "v-" + key);
        } else if (o == Outcome.NOT_APPLIED) {
          assertThat(stored).as("refused %s", key).doesNotContainKey(key);
        }
      });
      assertThat(outcomes.keySet()).as("no key nobody wrote").containsAll(stored.keySet());
      assertThat(outcomes).as("some writes were acknowledged").containsValue(Outcome.ACKED);
      if (!split.isCompletedExceptionally()) {
        for (FakeNodes.Node n : nodes.all()) {
          assertThat(n.store().rangeState(2)).as("the split's child on %s", n.id()).isPresent();
          assertThat(n.store().rangeState(1).orElseThrow().descriptor().end()).isEqualTo(RangeEnd.at(SPLIT_KEY));
        }
      }
    }
  }

  private static FakeNodes.Node leaderOrAny(FakeNodes nodes, Gen gen) {
    String leader = nodes.cluster().leaderOf(1);
    return leader.isEmpty() ? gen.pick(nodes.all()) : nodes.node(leader);
  }

  /** A put of its own key, addressed as the sending node sees the ranges (the split moves the upper half). */
  private static BatchRequest write(FakeNodes.Node via, String key, int requestId) {
    Key k = Key.utf8(key);
    RangeDescriptor d = via.directory().replicas().stream().map(RangeReplica::descriptor).flatMap(Optional::stream)
        .filter(r -> r.contains(k)).findFirst()
        .orElse(new RangeDescriptor(1, Key.EMPTY, RangeEnd.INFINITY, List.of(), 0));
    return BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()))
        .setWriteId(WriteId.newBuilder().setClientId(CLIENT).setRequestId(requestId + 1L))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v-" + key))))
        .build();
  }

  /** Splits range 1 at "m" into child 2, proposed on its leader through the node's split proposer. */
  private static CompletableFuture<?> split(FakeNodes nodes) {
    FakeNodes.Node leader = nodes.node(nodes.cluster().leaderOf(1));
    RangeDescriptor d = leader.directory().replica(1).flatMap(RangeReplica::descriptor).orElseThrow();
    SplitHost host = leader.splitHost();
    return new SplitProposer(host, leader.store(), RangeIdSource.absent(), applied -> { })
        .split(RangeHeader.newBuilder().setRangeId(1).setGeneration(d.generation()).build(),
            ByteString.copyFromUtf8("m"), 2);
  }

  private static Outcome outcome(CompletableFuture<CommandResult> f) {
    assertThat(f.isDone()).as("every write got an answer once the cluster settled").isTrue();
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
