package dev.rangekv.server.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.consensus.FakeCluster;
import dev.rangekv.server.consensus.FakeNodes;
import dev.rangekv.server.consensus.ManualScheduler;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.move.LocalReplicas;
import dev.rangekv.server.move.MoveOptions;
import dev.rangekv.server.raft.PeerChannels;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MergeCoordinator} on a {@link FakeCluster}, run on the test's thread (a direct executor): a merge
 * of two neighbours on one node ends with one range over both spans and every acknowledged write readable;
 * a merge refused because the right range's members differ, or change while it starts, leaves both
 * ranges writable. Only one node merges end to end here; {@code MergeAcrossNodesTest} merges on three.
 */
class MergeCoordinatorOnFakeEngineTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[16]);

  @TempDir Path dir;
  private long requestId;

  @Test
  void merge_ofTwoNeighbours_coversBothSpans_andKeepsEveryAcknowledgedWrite() {
    FakeCluster cluster = new FakeCluster(1, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 1)) {
      nodes.bootstrap();
      FakeNodes.Node n = nodes.node("n1");
      write(nodes, n, "a1");
      write(nodes, n, "z1");
      split(nodes, "m");
      write(nodes, n, "b2");
      write(nodes, n, "y2");
      assertThat(descriptor(n, 1).end()).isEqualTo(RangeEnd.at(Key.utf8("m")));

      CompletableFuture<RangeDescriptorProto> merged = coordinator(n).merge(request(n));
      for (int i = 0; i < 100 && !merged.isDone(); i++) {
        cluster.run();
      }

      assertThat(merged).isCompleted();
      RangeDescriptor left = descriptor(n, 1);
      assertThat(left.start()).isEqualTo(Key.EMPTY);
      assertThat(left.end()).isEqualTo(RangeEnd.INFINITY);
      assertThat(merged.join().getRangeId()).isEqualTo(1);
      assertThat(n.directory().replica(2)).as("the right range is dropped").isEmpty();
      write(nodes, n, "c3");
      write(nodes, n, "x3");
      assertThat(scan(n).keySet()).containsExactly("a1", "b2", "c3", "x3", "y2", "z1");
    }
  }

  @Test
  void merge_afterSeededWritesAndASplit_keepsExactlyTheAcknowledgedWrites() {
    Property.named("merge after seeded writes").cases(8).sizes(5, 40).check(this::mergeCase);
  }

  private void mergeCase(Gen gen) throws Exception {
    FakeCluster cluster = new FakeCluster(gen.nextLong(), FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, Files.createTempDirectory(dir, "case"), 1)) {
      nodes.bootstrap();
      FakeNodes.Node n = nodes.node("n1");
      Map<String, String> model = new TreeMap<>();
      String splitKey = String.valueOf((char) ('b' + gen.nextInt(24)));
      for (int phase = 0; phase < 3; phase++) {
        if (phase == 1) {
          split(nodes, splitKey);
        } else if (phase == 2) {
          CompletableFuture<RangeDescriptorProto> merged = coordinator(n).merge(request(n));
          cluster.run();
          assertThat(merged).isCompleted();
          assertThat(descriptor(n, 1).end()).isEqualTo(RangeEnd.INFINITY);
          assertThat(n.directory().replica(2)).as("the right range is dropped").isEmpty();
        }
        for (int i = gen.size(); i > 0; i--) {
          String key = (char) ('a' + gen.nextInt(26)) + String.valueOf(gen.nextInt(10));
          String value = "v" + phase + "-" + i;
          write(nodes, n, key, value);
          model.put(key, value);
        }
      }
      assertThat(scan(n)).isEqualTo(model);
    }
  }

  @Test
  void merge_namingAStaleRightGeneration_isRefusedAsMoved_andBothRangesStayWritable() {
    FakeCluster cluster = new FakeCluster(4, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 1)) {
      nodes.bootstrap();
      FakeNodes.Node n = nodes.node("n1");
      split(nodes, "m");
      MergeRangesRequest stale = request(n).toBuilder()
          .setRight(RangeHeader.newBuilder().setRangeId(2).setGeneration(descriptor(n, 2).generation() + 1)).build();

      assertThatThrownBy(() -> coordinator(n).merge(stale).join())
          .rootCause().isInstanceOfSatisfying(RangeKvException.class,
              e -> assertThat(e.error().hasRangeMoved()).isTrue());

      assertThat(descriptor(n, 1).end()).isEqualTo(RangeEnd.at(Key.utf8("m")));
      assertThat(n.directory().replica(2)).isPresent();
      write(nodes, n, "a1");
      write(nodes, n, "z1");
      assertThat(scan(n).keySet()).containsExactly("a1", "z1");
    }
  }

  @Test
  void merge_whenTheRightRangesMembersDiffer_isRefused_andBothRangesStayWritable() {
    FakeCluster cluster = new FakeCluster(2, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      split(nodes, "m");
      FakeNodes.Node rightLeader = nodes.leaderOf(2);
      List<Member> all = Member.of(rightLeader.directory().replicaRecord(2));
      CompletableFuture<Void> shrunk = rightLeader.engine().changeMembers(2, all,
          all.stream().filter(m -> !m.nodeId().equals("n3")).toList(), Duration.ofSeconds(5));
      cluster.run();
      assertThat(shrunk).isCompleted();
      if (cluster.leaderOf(1).equals("n3")) {
        cluster.electLeader(1, "n1");
        cluster.run();
      }
      FakeNodes.Node leader = nodes.leaderOf(1);

      assertThatThrownBy(() -> coordinator(leader).merge(request(leader)).join())
          .hasRootCauseInstanceOf(RangeKvException.class)
          .rootCause().hasMessageContaining("replica sets differ");

      assertThat(descriptor(leader, 1).end()).isEqualTo(RangeEnd.at(Key.utf8("m")));
      write(nodes, leader, "a1");
      write(nodes, nodes.leaderOf(2), "z1");
      assertThat(scan(leader).keySet()).containsExactly("a1", "z1");
    }
  }

  @Test
  void merge_whileTheRightRangeChangesItsMembers_isRefused_andBothRangesStayWritable() {
    FakeCluster cluster = new FakeCluster(3, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      split(nodes, "m");
      cluster.electLeader(2, cluster.leaderOf(1));
      cluster.run();
      FakeNodes.Node leader = nodes.leaderOf(1);
      List<Member> all = Member.of(leader.directory().replicaRecord(2));
      // n3 replaced by a node that never opens its replica: the change stays in flight until it times out
      List<Member> next = new ArrayList<>(all.stream().filter(m -> !m.nodeId().equals("n3")).toList());
      next.add(Member.of(RaftReplica.newBuilder().setNodeId("n4").setRaftAddress("n4:raft")
          .setClientAddress(FakeNodes.UNREACHABLE).build()));
      CompletableFuture<Void> changing = leader.engine().changeMembers(2, all, next, Duration.ofSeconds(5));
      assertThat(changing).isNotDone();

      assertThatThrownBy(() -> coordinator(leader).merge(request(leader)).join())
          .hasRootCauseInstanceOf(RangeKvException.class)
          .rootCause().hasMessageContaining("changing its configuration");

      cluster.run();
      assertThat(changing).as("the change timed out").isCompletedExceptionally();
      assertThat(descriptor(leader, 1).end()).isEqualTo(RangeEnd.at(Key.utf8("m")));
      write(nodes, nodes.leaderOf(1), "a1");
      write(nodes, nodes.leaderOf(2), "z1");
      assertThat(scan(nodes.leaderOf(1)).keySet()).containsExactly("a1", "z1");
    }
  }

  private static MergeCoordinator coordinator(FakeNodes.Node n) {
    RaftReplica self = n.replica();
    ManualScheduler timer = new ManualScheduler(() -> 0); // one node: nothing waits
    return new MergeCoordinator(n.engine(), n.gateway(), n.directory(),
        new LocalReplicas(n.engine(), n.store(), n.directory(), null, self), new GrpcMergePeers(new PeerChannels(),
        n.directory()), new Scheduling(Runnable::run, timer, System::nanoTime), MoveOptions.defaults());
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

  /** Puts {@code key} through {@code via}'s gateway to the range holding it; asserts it was acknowledged. */
  private void write(FakeNodes nodes, FakeNodes.Node via, String key) {
    write(nodes, via, key, "v-" + key);
  }

  private void write(FakeNodes nodes, FakeNodes.Node via, String key, String value) {
    Key k = Key.utf8(key);
    RangeDescriptor d = via.directory().replicas().stream().map(RangeReplica::descriptor).flatMap(Optional::stream)
        .filter(r -> r.contains(k)).findFirst().orElseThrow();
    BatchRequest batch = BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(d.rangeId()).setGeneration(d.generation()))
        .setWriteId(WriteId.newBuilder().setClientId(CLIENT).setRequestId(++requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8(value))))
        .build();
    CompletableFuture<CommandResult> f = via.proposals().write(batch);
    nodes.cluster().run();
    assertThat(f).as("write of %s", key).isCompleted();
    assertThat(f.join().getBatch().getSucceeded()).as("write of %s", key).isTrue();
  }

  /** Splits range 1 at {@code at} into child 2 on its leader, as the split proposer does. */
  private static void split(FakeNodes nodes, String at) {
    FakeNodes.Node leader = nodes.leaderOf(1);
    SplitHost host = leader.splitHost();
    CompletableFuture<?> split = new SplitProposer(host, leader.store(), RangeIdSource.absent(), applied -> { })
        .split(RangeHeader.newBuilder().setRangeId(1).setGeneration(descriptor(leader, 1).generation()).build(),
            ByteString.copyFromUtf8(at), 2);
    nodes.cluster().run();
    assertThat(split).isCompleted();
  }

  private static Map<String, String> scan(FakeNodes.Node n) {
    Map<String, String> out = new LinkedHashMap<>();
    for (KeyValue kv : n.store().scan(Key.EMPTY, RangeEnd.INFINITY, 100_000, false)) {
      out.put(new String(kv.key().toByteArray(), StandardCharsets.UTF_8), new String(kv.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}
