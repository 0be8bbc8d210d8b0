package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.server.consensus.GroupStatus;
import dev.rangekv.server.consensus.Member;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.move.NodeAdminClient;
import dev.rangekv.server.multiraft.MultiRaftEngine;
import dev.rangekv.server.replica.DormancyRecord;
import dev.rangekv.testcluster.ClusterRouter;
import dev.rangekv.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The range changes that run through the consensus seam unchanged, on the multi-raft engine: a split, the
 * merge back, a move of the leader's replica to a fourth node (one member at a time: learner, promotion,
 * removal; the leader's status names the voters being left until the last step), an add that never
 * catches up (its learner is removed again), a move onto the node the first move left (one of the group's
 * initial members, which MicroRaft never adds again under the same endpoint: the re-added replica is a new
 * incarnation) led by the replica the first move added, and dormancy (every group closed) ended by writers waking the range; writers run
 * throughout, and every acknowledged write reads back at the end, from the re-added replica's store too.
 */
@ExtendWith(OnMultiRaftEngine.class)
class MultiRaftRangeChangesIT {
  private static final Logger log = LoggerFactory.getLogger(MultiRaftRangeChangesIT.class);

  @TempDir Path dir;

  @Test
  @Timeout(240)
  void splitMergeMoveAndDormancy_underWriters_loseNoAcknowledgedWrite() throws Exception {
    RaftTuning tuning = RaftTuning.forTests().withDormantAfter(Duration.ofSeconds(3));
    try (LocalCluster cluster = LocalCluster.start(4, dir, tuning);
        ClusterRouter router = ClusterSteps.router(cluster);
        NodeAdminClient mover = ClusterSteps.mover(cluster, Duration.ofSeconds(60))) {
      for (int i = 0; i < cluster.size(); i++) {
        assertThat(cluster.node(i).consensus()).isInstanceOf(MultiRaftEngine.class);
      }
      router.refresh();
      Writers before = new Writers(cluster, 4);
      RangeDescriptorProto moved;
      RangeDescriptorProto back;
      String leaving;
      try (before) {
        before.start();
        before.awaitAcks(200, Duration.ofSeconds(60));

        router.split(Key.utf8(Writers.key(Writers.KEY_SPACE / 2)));
        List<RangeDescriptorProto> two = router.awaitRanges(2, Duration.ofSeconds(30));
        before.awaitAcks(200, Duration.ofSeconds(60));

        RangeDescriptorProto merged = mover.merge(two.get(0).getRangeId(), two.get(1).getRangeId());
        assertThat(merged.getEndInfinite()).isTrue();
        assertThat(router.awaitRanges(1, Duration.ofSeconds(30))).hasSize(1);
        before.awaitAcks(200, Duration.ofSeconds(60));

        // the leader's replica leaves: leadership moves off first, then n4 joins one member at a time
        NodeAdminClient.Located located = mover.locate(merged.getRangeId()).orElseThrow();
        leaving = located.leaderNodeId();
        List<String> votersBefore = located.range().getReplicasList().stream().map(ReplicaProto::getNodeId).sorted()
            .toList();
        Set<List<String>> previousSeen = ConcurrentHashMap.newKeySet();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try {
          // the statuses every node reports meanwhile: the leader names the voters being left until the end
          sampler.scheduleAtFixedRate(() -> sampleChanges(cluster, merged.getRangeId(), previousSeen), 0, 1,
              TimeUnit.MILLISECONDS);
          moved = mover.move(merged.getRangeId(), leaving, cluster.config(3).clientAddress(), 0);
        } finally {
          sampler.shutdownNow();
          sampler.awaitTermination(10, TimeUnit.SECONDS);
        }
        assertThat(moved.getReplicasList()).extracting(ReplicaProto::getNodeId).contains("n4").doesNotContain(leaving)
            .hasSize(3);
        assertThat(previousSeen).as("previous members reported during the move").containsExactly(votersBefore);
        for (int i = 0; i < cluster.size(); i++) {
          cluster.node(i).consensus().status(merged.getRangeId())
              .ifPresent(st -> assertThat(st.previousMembers()).as("previous members after the move").isEmpty());
        }
        before.awaitAcks(200, Duration.ofSeconds(60));

        // an add whose replica never catches up (no such node) fails and takes its learner out again
        NodeAdminClient.Located now = mover.locate(moved.getRangeId()).orElseThrow();
        RangeConsensus leader = cluster.node(Integer.parseInt(now.leaderNodeId().substring(1)) - 1).consensus();
        List<Member> voters = leader.status(moved.getRangeId()).orElseThrow().members();
        List<Member> withGhost = new ArrayList<>(voters);
        withGhost.add(new Member("n9", "127.0.0.1:1"));
        assertThatThrownBy(() -> leader.changeMembers(moved.getRangeId(), voters, withGhost, Duration.ofSeconds(2))
            .get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        GroupStatus after = leader.status(moved.getRangeId()).orElseThrow();
        assertThat(after.hasNonVoters()).as("a learner left behind").isFalse();
        assertThat(after.memberIds()).containsExactlyInAnyOrderElementsOf(voters.stream().map(Member::nodeId).toList());
        assertThat(after.changing()).isFalse();
        before.awaitAcks(100, Duration.ofSeconds(60));

        // a replica goes back to the node the first move left, one of the group's first three: a new incarnation
        // there (its earlier one was destroyed with its log), fetching the span and catching up under the
        // writers from n4's replica, itself added later, as the leader
        mover.transferLeader(moved.getRangeId(), "n4");
        String from = moved.getReplicasList().stream().map(ReplicaProto::getNodeId).filter(id -> !id.equals("n4"))
            .findFirst().orElseThrow();
        back = mover.move(moved.getRangeId(), from, cluster.config(index(leaving)).clientAddress(), 0);
        assertThat(back.getReplicasList()).extracting(ReplicaProto::getNodeId).contains(leaving, "n4")
            .doesNotContain(from).hasSize(3);
        before.awaitAcks(200, Duration.ofSeconds(60));
        log.info("split, merge, move and move back done acked={} writerRetries={}", before.acks(), before.retries());
      }

      List<Integer> holders = holders(back);
      int gone = List.of(0, 1, 2, 3).stream().filter(i -> !holders.contains(i)).findFirst().orElseThrow();
      awaitDormant(cluster, holders);
      assertThat(cluster.node(gone).store().allRangeStates()).as("range state left on n%d", gone + 1).isEmpty();
      assertThat(cluster.node(gone).consensus().openRanges()).isEmpty();

      // fresh writers wake the dormant range together
      Writers after = new Writers(cluster, 4);
      try (after) {
        after.start();
        after.awaitAcks(200, Duration.ofSeconds(60));
      }
      Map<String, String> expected = new HashMap<>(before.acked());
      expected.putAll(after.acked()); // the later writers' values replace the earlier ones' on shared keys
      Map<String, String> read = new HashMap<>();
      for (KeyValueProto kv : router.scan(Key.EMPTY, RangeEnd.INFINITY, 0)) {
        read.put(kv.getKey().toStringUtf8(), kv.getValue().toStringUtf8());
      }
      expected.forEach((k, v) -> assertThat(read.get(k)).as("last acknowledged value of %s", k).isEqualTo(v));
      ClusterSteps.awaitSameStores(cluster, "the replicas' stores to converge", Duration.ofSeconds(30), () -> holders);
      Map<String, String> readded = new HashMap<>();
      for (var kv : cluster.node(index(leaving)).store().scan(Key.EMPTY, RangeEnd.INFINITY, Integer.MAX_VALUE, false)) {
        readded.put(kv.key().toUtf8(), new String(kv.value(), java.nio.charset.StandardCharsets.UTF_8));
      }
      expected.forEach((k, v) -> assertThat(readded.get(k)).as("%s on the re-added replica (%s)", k, leaving).isEqualTo(v));
      assertThat(cluster.node(gone).store().scan(Key.EMPTY, RangeEnd.INFINITY, 1, false)).as("data left on n%d", gone + 1)
          .isEmpty();
      // the engine's own timers are the node's Raft meters (this cluster has no Ratis group at all)
      double proposals = 0;
      for (int i : holders) {
        var registry = cluster.node(i).metrics().orElseThrow().registry();
        proposals += registry.get("rangekv.raft.proposals").functionCounter().count();
        assertThat(registry.get("rangekv.raft.log.syncs").functionCounter().count()).as("log syncs on n%d", i + 1)
            .isPositive();
      }
      assertThat(proposals).isPositive();
    }
  }

  private static void sampleChanges(LocalCluster cluster, long rangeId, Set<List<String>> previousSeen) {
    for (int i = 0; i < cluster.size(); i++) {
      try {
        cluster.node(i).consensus().status(rangeId).filter(GroupStatus::changing)
            .ifPresent(st -> previousSeen.add(st.previousMembers().stream().map(Member::nodeId).sorted().toList()));
      } catch (RuntimeException e) {
        // a group closing under the sampler: nothing to see
      }
    }
  }

  private static int index(String nodeId) {
    return Integer.parseInt(nodeId.substring(1)) - 1;
  }

  private static List<Integer> holders(RangeDescriptorProto range) {
    List<Integer> out = new ArrayList<>();
    for (ReplicaProto r : range.getReplicasList()) {
      out.add(Integer.parseInt(r.getNodeId().substring(1)) - 1);
    }
    return out;
  }

  /** Every replica of the range on {@code nodes} recorded dormant and its group closed. */
  private static void awaitDormant(LocalCluster cluster, List<Integer> nodes) {
    Await.until(Duration.ofSeconds(60), "the range dormant on " + nodes, () -> {
      for (int i : nodes) {
        RangeKvNode n = cluster.node(i);
        if (!n.directory().replicas().isEmpty() || !n.consensus().openRanges().isEmpty()) {
          return false;
        }
        var states = n.store().allRangeStates();
        if (states.size() != 1 || DormancyRecord.dormantAt(n.store(), states.get(0).rangeId()).isEmpty()) {
          return false;
        }
      }
      return true;
    });
  }
}
