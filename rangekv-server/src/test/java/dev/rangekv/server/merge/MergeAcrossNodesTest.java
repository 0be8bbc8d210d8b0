package dev.rangekv.server.merge;

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
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.ManualScheduler;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.move.MoveOptions;
import dev.rangekv.server.replica.RangeKvException;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.split.RangeIdSource;
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
 * {@link MergeCoordinator} on three nodes of a {@link FakeCluster}, the left range's leader asking the
 * others through {@link InProcessMergePeers} and retrying on a {@link ManualScheduler} on the cluster's
 * clock, all on the test's thread: the right range's leader going mid-freeze, a peer unreachable for a
 * while, and seeded drops, delays and leader changes with writes before and after, checked against the
 * acknowledged writes.
 */
class MergeAcrossNodesTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[16]);
  private static final long STEP_MILLIS = 20;

  @TempDir Path dir;
  private long requestId;

  private enum Outcome { ACKED, NOT_APPLIED, UNKNOWN }

  /** One world: the nodes, their peers' view and the timer every coordinator retries on. */
  private record World(FakeCluster cluster, FakeNodes nodes, InProcessMergePeers peers, ManualScheduler timer) {
    MergeCoordinator coordinator(FakeNodes.Node n) {
      return new MergeCoordinator(n.engine(), n.gateway(), n.directory(),
          new LocalReplicas(n.engine(), n.store(), n.directory(), null, n.replica()), peers,
          new Scheduling(Runnable::run, timer, () -> cluster.now() * 1_000_000), MoveOptions.defaults());
    }

    /** Runs the cluster and the timer until {@code f} completes or {@code maxMillis} of fake time passed. */
    void settle(CompletableFuture<?> f, long maxMillis) {
      long until = cluster.now() + maxMillis;
      while (!f.isDone() && cluster.now() < until) {
        cluster.run();
        cluster.advance(STEP_MILLIS);
        timer.runDue();
      }
      cluster.run();
    }
  }

  private World world(long seed, FakeCluster.Faults faults, Path where) {
    FakeCluster cluster = new FakeCluster(seed, faults);
    FakeNodes nodes = new FakeNodes(cluster, where, 3);
    return new World(cluster, nodes, new InProcessMergePeers(nodes), new ManualScheduler(cluster::now));
  }

  @Test
  void merge_whileTheRightRangesLeaderGoesMidFreeze_retriesOnTheNewLeader_andKeepsEveryWrite() {
    World w = world(21, FakeCluster.Faults.NONE, dir);
    try (FakeNodes nodes = w.nodes()) {
      nodes.bootstrap();
      w.cluster().electLeader(1, "n1");
      w.cluster().run();
      split(nodes, "m");
      w.cluster().electLeader(2, "n2");
      w.cluster().run();
      assertThat(write(w, "a1")).isEqualTo(Outcome.ACKED);
      assertThat(write(w, "z1")).isEqualTo(Outcome.ACKED);

      CompletableFuture<RangeDescriptorProto> merged = w.coordinator(nodes.node("n1")).merge(request(nodes.node("n1")));
      assertThat(merged).as("the freeze waits on n2, the right's leader").isNotDone();
      nodes.node("n2").engine().close(2); // n2 goes before its freeze entry reached anyone
      w.cluster().electLeader(2, "n3");
      w.cluster().run();
      nodes.node("n2").engine().reopen(2, List.of());
      w.settle(merged, 60_000);

      assertThat(merged).isCompleted();
      for (FakeNodes.Node n : nodes.all()) {
        RangeDescriptor left = descriptor(n, 1);
        assertThat(left.end()).as("the merged range on %s", n.id()).isEqualTo(RangeEnd.INFINITY);
        assertThat(n.directory().replica(2)).as("the right range dropped on %s", n.id()).isEmpty();
        assertThat(scan(n).keySet()).as("data on %s", n.id()).containsExactly("a1", "z1");
      }
      assertThat(write(w, "b2")).isEqualTo(Outcome.ACKED);
      assertThat(write(w, "y2")).isEqualTo(Outcome.ACKED);
    }
  }

  @Test
  void merge_whoseFreezeReplyIsLost_retriesTheFreeze_andCompletes() {
    World w = world(23, FakeCluster.Faults.NONE, dir);
    try (FakeNodes nodes = w.nodes()) {
      nodes.bootstrap();
      w.cluster().electLeader(1, "n1");
      w.cluster().run();
      split(nodes, "m");
      w.cluster().electLeader(2, "n2");
      w.cluster().run();
      assertThat(write(w, "z1")).isEqualTo(Outcome.ACKED);
      w.peers().loseNextFreezeReply("n2"); // the freeze applies; the coordinator cannot know it did

      CompletableFuture<RangeDescriptorProto> merged = w.coordinator(nodes.node("n1")).merge(request(nodes.node("n1")));
      w.settle(merged, 60_000);

      assertThat(merged).isCompleted();
      for (FakeNodes.Node n : nodes.all()) {
        assertThat(descriptor(n, 1).end()).as("the merged range on %s", n.id()).isEqualTo(RangeEnd.INFINITY);
        assertThat(n.directory().replica(2)).as("the right range dropped on %s", n.id()).isEmpty();
      }
      assertThat(write(w, "z2")).isEqualTo(Outcome.ACKED);
    }
  }

  @Test
  void merge_whenAMemberIsUnreachableForAWhile_waitsForItsApply_thenDropsTheRightEverywhere() {
    World w = world(22, FakeCluster.Faults.NONE, dir);
    try (FakeNodes nodes = w.nodes()) {
      nodes.bootstrap();
      w.cluster().electLeader(1, "n1");
      w.cluster().run();
      split(nodes, "m");
      w.cluster().electLeader(2, "n1");
      w.cluster().run();
      w.peers().down("n3", true);

      CompletableFuture<RangeDescriptorProto> merged = w.coordinator(nodes.node("n1")).merge(request(nodes.node("n1")));
      w.settle(merged, 1_000);
      assertThat(merged).as("n3's applied index is unknown: the freeze is not known everywhere").isNotDone();
      w.peers().down("n3", false);
      w.settle(merged, 60_000);

      assertThat(merged).isCompleted();
      for (FakeNodes.Node n : nodes.all()) {
        assertThat(descriptor(n, 1).end()).isEqualTo(RangeEnd.INFINITY);
        assertThat(n.directory().replica(2)).as("the right range dropped on %s", n.id()).isEmpty();
      }
    }
  }

  @Test
  void merge_underSeededFaults_endsWithOneRange_holdingExactlyTheAcknowledgedWrites() {
    Property.named("merge across nodes").cases(8).sizes(5, 30).check(this::faultyCase);
  }

  private void faultyCase(Gen gen) throws Exception {
    World w = world(gen.nextLong(), new FakeCluster.Faults(0.1, 20, 0.01), Files.createTempDirectory(dir, "case"));
    try (FakeNodes nodes = w.nodes()) {
      nodes.bootstrap();
      Map<String, Outcome> outcomes = new LinkedHashMap<>();
      String splitKey = String.valueOf((char) ('b' + gen.nextInt(24)));
      for (int phase = 0; phase < 3; phase++) {
        if (phase == 1) {
          split(nodes, splitKey);
        } else if (phase == 2) {
          mergeUntilDone(w);
        }
        for (int i = gen.size(); i > 0; i--) {
          String key = (char) ('a' + gen.nextInt(26)) + "-" + phase + "-" + i;
          outcomes.put(key, write(w, key));
        }
      }
      w.cluster().run();
      Map<String, String> stored = scan(nodes.all().get(0));
      for (FakeNodes.Node n : nodes.all()) {
        assertThat(descriptor(n, 1).end()).as("one range on %s", n.id()).isEqualTo(RangeEnd.INFINITY);
        assertThat(n.directory().replica(2)).as("the right range dropped on %s", n.id()).isEmpty();
        assertThat(scan(n)).as("data on %s", n.id()).isEqualTo(stored);
      }
      outcomes.forEach((key, o) -> {
        if (o == Outcome.ACKED) {
          assertThat(stored).as("acknowledged %s", key).containsKey(key);
        } else if (o == Outcome.NOT_APPLIED) {
          assertThat(stored).as("refused %s", key).doesNotContainKey(key);
        }
      });
      assertThat(outcomes.keySet()).as("no key nobody wrote").containsAll(stored.keySet());
    }
  }

  /**
   * Asks the left's leader to merge until it did, as the controller retries a merge whose outcome is
   * unknown or whose steps timed out; a retry names the generations the leader sees now.
   */
  private static void mergeUntilDone(World w) {
    for (int attempt = 0; attempt < 10; attempt++) {
      w.cluster().run();
      String leader = w.cluster().leaderOf(1);
      if (leader.isEmpty()) {
        continue;
      }
      FakeNodes.Node n = w.nodes().node(leader);
      if (n.directory().replica(2).isEmpty()) {
        return; // an earlier attempt merged
      }
      CompletableFuture<RangeDescriptorProto> merged;
      try {
        merged = w.coordinator(n).merge(request(n));
      } catch (RangeKvException e) {
        continue;
      }
      w.settle(merged, 120_000);
      if (merged.isDone() && !merged.isCompletedExceptionally()) {
        w.settle(new CompletableFuture<>(), 1_000); // the drops on the other members
        return;
      }
    }
    throw new AssertionError("no merge in 10 attempts");
  }

  private static MergeRangesRequest request(FakeNodes.Node n) {
    return MergeRangesRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(descriptor(n, 1).generation()))
        .setRight(RangeHeader.newBuilder().setRangeId(2).setGeneration(descriptor(n, 2).generation()))
        .build();
  }

  private static RangeDescriptor descriptor(FakeNodes.Node n, long rangeId) {
    return n.directory().replica(rangeId).flatMap(RangeReplica::descriptor).orElseThrow();
  }

  /** Puts {@code key} through the leader of the range holding it (any node when leaderless); its outcome. */
  private Outcome write(World w, String key) {
    w.cluster().run();
    Key k = Key.utf8(key);
    FakeNodes.Node any = w.nodes().node("n1");
    RangeDescriptor d = any.directory().replicas().stream().map(RangeReplica::descriptor).flatMap(Optional::stream)
        .filter(r -> r.contains(k)).findFirst().orElseThrow();
    String leader = w.cluster().leaderOf(d.rangeId());
    FakeNodes.Node via = leader.isEmpty() ? any : w.nodes().node(leader);
    BatchRequest batch = BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()))
        .setWriteId(WriteId.newBuilder().setClientId(CLIENT).setRequestId(++requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v-" + key))))
        .build();
    CompletableFuture<CommandResult> f = via.proposals().write(batch);
    w.cluster().run();
    assertThat(f).as("write of %s answered", key).isDone();
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

  /** Splits range 1 at {@code at} into child 2 on its leader, as the split proposer does (retried if it failed). */
  private static void split(FakeNodes nodes, String at) {
    for (int attempt = 0; attempt < 10 && nodes.node("n1").directory().replica(2).isEmpty(); attempt++) {
      nodes.cluster().run();
      String leaderId = nodes.cluster().leaderOf(1);
      if (leaderId.isEmpty()) {
        continue;
      }
      FakeNodes.Node leader = nodes.node(leaderId);
      CompletableFuture<?> split = new SplitProposer(leader.splitHost(), leader.store(), RangeIdSource.absent(),
          applied -> { }).split(RangeHeader.newBuilder().setRangeId(1)
          .setGeneration(descriptor(leader, 1).generation()).build(), ByteString.copyFromUtf8(at), 2);
      nodes.cluster().run();
      assertThat(split).isDone();
    }
    nodes.cluster().run();
    for (FakeNodes.Node n : nodes.all()) {
      assertThat(n.directory().replica(2)).as("the split's child on %s", n.id()).isPresent();
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
