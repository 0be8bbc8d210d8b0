package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica move of a 3-replica range is one Raft configuration change (joint consensus): the range
 * never has 4 voters in any configuration, the change is recorded once, a leader refuses to replace
 * itself (retryably, nothing applied), and a replace whose target dies mid-copy leaves the old replicas.
 * On the multi-raft engine (-Drangekv.engine=multiraft) members change one at a time, so a replacement
 * passes through 4 voters, never 5 (docs/architecture.md, "The multi-raft engine"); the rest holds as is.
 */
class ReplaceReplicaIT {
  @TempDir Path dir;

  @Test
  @Timeout(180)
  void aMoveOffTheLeader_swapsTheReplicasInOneChange_andNeverHasAFourthVoter() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(90));
        VoterSampler voters = new VoterSampler(cluster, 1)) {
      router.refresh();
      for (int i = 0; i < 200; i++) {
        router.put(Writers.key(i), "v" + i);
      }
      NodeAdminClient.Located before = mover.locate(1).orElseThrow();
      String leaving = before.leaderNodeId();
      voters.start();

      RangeDescriptorProto after = mover.move(1, leaving, cluster.config(3).clientAddress(), 0);

      voters.stop();
      assertThat(voters.samples.get()).as("the sampler saw the group").isPositive();
      int bound = EngineChoice.current() == EngineChoice.MULTIRAFT ? 4 : 3;
      assertThat(voters.maxVoters.get()).as("voters in any configuration during the move").isEqualTo(bound);
      assertThat(after.getGeneration()).as("one recorded change").isEqualTo(before.range().getGeneration() + 1);
      List<String> expected = new ArrayList<>(before.range().getReplicasList().stream().map(ReplicaProto::getNodeId)
          .filter(n -> !n.equals(leaving)).toList());
      expected.add("n4");
      assertThat(after.getReplicasList()).extracting(ReplicaProto::getNodeId).containsExactlyInAnyOrderElementsOf(expected);
      int gone = Integer.parseInt(leaving.substring(1)) - 1;
      Await.until(Duration.ofSeconds(30), "the replaced replica dropped",
          () -> !cluster.node(gone).consensus().openRanges().contains(1L));
      assertThat(router.get(Writers.key(7))).contains("v7");
    }
  }

  @Test
  @Timeout(120)
  void aLeaderAskedToReplaceItself_refusesRetryably_andChangesNothing() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      router.put("a", "1");
      NodeAdminClient.Located loc = mover.locate(1).orElseThrow();
      ManagedChannel ch = ManagedChannelBuilder.forTarget(loc.leaderAddress()).usePlaintext().build();
      try {
        AddReplicaRequest replaceSelf = AddReplicaRequest.newBuilder()
            .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(loc.range().getGeneration()))
            .setAddress(cluster.config(3).clientAddress()).setReplacingNodeId(loc.leaderNodeId()).build();
        StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
            () -> NodeAdminServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
                .addReplica(replaceSelf));
        RangeKvError error = RangeKvErrors.fromThrowable(e).orElseThrow();
        assertThat(error.hasUnavailable()).as("%s", error).isTrue();
        assertThat(error.getDefinitelyNotApplied()).isTrue();
        assertThat(error.getMessage()).contains("cannot replace its own replica");
      } finally {
        ch.shutdownNow();
      }
      RangeDescriptorProto now = mover.locate(1).orElseThrow().range();
      assertThat(now).isEqualTo(loc.range());
      assertThat(cluster.node(3).consensus().openRanges()).doesNotContain(1L);
    }
  }

  @Test
  @Timeout(180)
  void killingTheTargetMidReplace_abortsIt_andTheRangeKeepsItsReplicas() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(4, dir, RaftTuning.forTests());
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      router.refresh();
      // Random (incompressible) values: ~2.4 MiB that the store cannot shrink.
      java.util.Random random = new java.util.Random(42);
      for (int i = 0; i < 600; i++) {
        StringBuilder v = new StringBuilder();
        random.ints(4096, 33, 127).forEach(c -> v.append((char) c));
        router.put(Writers.key(i), v.toString());
      }
      NodeAdminClient.Located before = mover.locate(1).orElseThrow();
      String follower = before.range().getReplicasList().stream().map(ReplicaProto::getNodeId)
          .filter(n -> !n.equals(before.leaderNodeId())).findFirst().orElseThrow();
      // ~2.4 MiB at 256 KiB/s: the snapshot transfer takes about 10 s, so the kill lands mid-transfer.
      CompletableFuture<RangeDescriptorProto> move = CompletableFuture.supplyAsync(
          () -> mover.move(1, follower, cluster.config(3).clientAddress(), 256 << 10));
      Path staging = cluster.config(3).dataDir().resolve("transfers");
      Await.until(Duration.ofSeconds(30), "the target to receive span files",
          () -> MoveIT.receivedBytes(staging) > 64 << 10);
      cluster.stop(3);
      assertThatThrownBy(() -> move.get(90, TimeUnit.SECONDS))
          .hasCauseInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("aborted");

      RangeDescriptorProto now = mover.locate(1).orElseThrow().range();
      assertThat(now.getGeneration()).isEqualTo(before.range().getGeneration());
      assertThat(now.getReplicasList()).extracting(ReplicaProto::getNodeId).containsExactlyInAnyOrder("n1", "n2", "n3");
      router.put("after-abort", "1");
      assertThat(router.get("after-abort")).contains("1");
    }
  }

  /**
   * Samples every node's Raft configuration of one range (its voters, and during a change the old
   * ones too) on its own thread, keeping the largest voter count seen. A sampler, not a wait: it looks
   * every few milliseconds until closed; the add-then-remove it guards against held 4 voters for the
   * whole recording of the change, hundreds of milliseconds at least.
   */
  static final class VoterSampler implements AutoCloseable {
    final AtomicInteger maxVoters = new AtomicInteger();
    final AtomicInteger samples = new AtomicInteger();
    private final LocalCluster cluster;
    private final long rangeId;
    private final Thread thread;
    private volatile boolean running = true;

    VoterSampler(LocalCluster cluster, long rangeId) {
      this.cluster = cluster;
      this.rangeId = rangeId;
      this.thread = new Thread(this::run, "voter-sampler");
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void run() {
      while (running) {
        for (int i = 0; i < cluster.size(); i++) {
          try {
            cluster.node(i).consensus().status(rangeId).ifPresent(s -> {
              maxVoters.accumulateAndGet(Math.max(s.members().size(), s.previousMembers().size()), Math::max);
              samples.incrementAndGet();
            });
          } catch (RuntimeException e) {
            // the node stopped
          }
        }
        try {
          Thread.sleep(2);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    @Override
    public void close() {
      stop();
    }

    /** Stops sampling and waits for the sampler's last look. */
    void stop() {
      running = false;
      thread.interrupt();
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
