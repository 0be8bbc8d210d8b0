package dev.rangekv.server.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.server.observe.LeaderCount;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's events ({@link GroupEvents}) on a {@link FakeCluster}: under seeded leader changes, drops
 * and delays each node hears became and lost in turn, never two leaders of a range at once, one became
 * per election, and ends agreeing with the cluster on who leads (so does the {@link LeaderCount} the
 * node's gauge reads); a membership change is reported as applied on every member of the new
 * configuration; a listener added late hears the present leaders first.
 */
class GroupEventsOnFakeEngineTest {
  @TempDir Path dir;

  /** What one node's listener heard, in order. */
  private record Heard(String node, String event, long rangeId) {}

  @Test
  void seededLeaderChanges_areHeardAsAlternatingBecameAndLost_oneBecamePerElection() {
    Property.named("leadership events").cases(10).sizes(10, 60).check(this::leadershipCase);
  }

  private void leadershipCase(Gen gen) throws Exception {
    FakeCluster cluster = new FakeCluster(gen.nextLong(), new FakeCluster.Faults(0.1, 20, 0.05));
    try (FakeNodes nodes = new FakeNodes(cluster, Files.createTempDirectory(dir, "case"), 3)) {
      List<Heard> heard = new ArrayList<>();
      Map<Long, String> leading = new HashMap<>(); // the model: who leads each range, by the events
      Map<String, LeaderCount> counts = new HashMap<>();
      for (FakeNodes.Node n : nodes.all()) {
        LeaderCount count = new LeaderCount();
        counts.put(n.id(), count);
        n.engine().addListener(count);
        n.engine().addListener(new GroupEvents() {
          @Override
          public void becameLeader(long rangeId) {
            assertThat(leading.get(rangeId)).as("a leader of range %d before %s took over", rangeId, n.id()).isNull();
            leading.put(rangeId, n.id());
            heard.add(new Heard(n.id(), "became", rangeId));
          }

          @Override
          public void lostLeadership(long rangeId, String leaderHint) {
            assertThat(leading.get(rangeId)).as("%s lost range %d it led", n.id(), rangeId).isEqualTo(n.id());
            leading.remove(rangeId);
            heard.add(new Heard(n.id(), "lost", rangeId));
          }
        });
      }
      nodes.bootstrap();
      for (int i = gen.size(); i > 0; i--) {
        String leader = cluster.leaderOf(1);
        if (!leader.isEmpty()) {
          nodes.node(leader).proposals().write(put("k" + i, i));
        }
        if (gen.chance(0.2)) {
          FakeNodes.Node any = gen.pick(nodes.all());
          if (cluster.leaderOf(1).equals(any.id())) {
            any.engine().close(1); // the leader goes; it comes back below
            cluster.run();
            any.engine().reopen(1, List.of());
          }
        }
        cluster.run();
      }
      cluster.run();

      long became = heard.stream().filter(h -> h.event().equals("became")).count();
      assertThat(became).as("one became per election").isEqualTo(cluster.term(1));
      for (FakeNodes.Node n : nodes.all()) {
        List<String> mine = heard.stream().filter(h -> h.node().equals(n.id())).map(Heard::event).toList();
        for (int i = 0; i < mine.size(); i++) {
          assertThat(mine.get(i)).as("event %d on %s", i, n.id()).isEqualTo(i % 2 == 0 ? "became" : "lost");
        }
        boolean leads = cluster.leaderOf(1).equals(n.id());
        assertThat(!mine.isEmpty() && mine.get(mine.size() - 1).equals("became")).as("%s leads", n.id()).isEqualTo(leads);
        assertThat(counts.get(n.id()).count()).as("leader count on %s", n.id()).isEqualTo(leads ? 1 : 0);
      }
      assertThat(leading.get(1L)).isEqualTo(cluster.leaderOf(1).isEmpty() ? null : cluster.leaderOf(1));
    }
  }

  @Test
  void aMembershipChange_isHeardAsApplied_onEveryMemberOfTheNewConfiguration() {
    FakeCluster cluster = new FakeCluster(7, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      cluster.electLeader(1, "n1");
      cluster.run();
      Map<String, List<List<String>>> applied = new HashMap<>();
      for (FakeNodes.Node n : nodes.all()) {
        n.engine().addListener(new GroupEvents() {
          @Override
          public void configurationApplied(long rangeId, List<Member> members, List<Member> previousMembers) {
            assertThat(previousMembers).isEmpty();
            applied.computeIfAbsent(n.id(), k -> new ArrayList<>()).add(members.stream().map(Member::nodeId).toList());
          }
        });
      }
      List<Member> all = Member.of(nodes.node("n1").directory().replicaRecord(1));
      List<Member> two = all.stream().filter(m -> !m.nodeId().equals("n3")).toList();

      CompletableFuture<Void> removed = nodes.node("n1").engine().changeMembers(1, all, two, Duration.ofSeconds(5));
      cluster.run();
      assertThat(removed).isCompleted();
      assertThat(applied).containsOnlyKeys("n1", "n2");
      assertThat(applied.get("n1")).containsExactly(List.of("n1", "n2"));
      assertThat(applied.get("n2")).containsExactly(List.of("n1", "n2"));

      applied.clear();
      nodes.node("n3").engine().destroy(1);
      nodes.node("n3").engine().createEmpty(1);
      CompletableFuture<Void> added = nodes.node("n1").engine().changeMembers(1, two, all, Duration.ofSeconds(5));
      cluster.run();
      assertThat(added).isCompleted();
      assertThat(applied).containsOnlyKeys("n1", "n2", "n3");
      applied.values().forEach(v -> assertThat(v).containsExactly(List.of("n1", "n2", "n3")));
    }
  }

  @Test
  void aListenerAddedLate_firstHearsTheRangesLedNow() {
    FakeCluster cluster = new FakeCluster(8, FakeCluster.Faults.NONE);
    try (FakeNodes nodes = new FakeNodes(cluster, dir, 3)) {
      nodes.bootstrap();
      cluster.electLeader(1, "n2");
      cluster.run();
      LeaderCount onLeader = new LeaderCount();
      LeaderCount onFollower = new LeaderCount();
      nodes.node("n2").engine().addListener(onLeader);
      nodes.node("n1").engine().addListener(onFollower);
      assertThat(onLeader.count()).isEqualTo(1);
      assertThat(onFollower.count()).isZero();

      nodes.node("n2").engine().transferLeadership(1, "n1", Duration.ofSeconds(1));
      cluster.run();
      assertThat(onLeader.count()).isZero();
      assertThat(onFollower.count()).isEqualTo(1);
    }
  }

  private static BatchRequest put(String key, long requestId) {
    return BatchRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(1).setGeneration(0))
        .setWriteId(WriteId.newBuilder().setClientId(ByteString.copyFrom(new byte[16])).setRequestId(requestId))
        .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder()
            .setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v"))))
        .build();
  }
}
