package dev.rangekv.core.rebalance;

import static dev.rangekv.core.cluster.ClusterFixtures.nodes;
import static dev.rangekv.core.cluster.ClusterFixtures.tiled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ClusterSnapshot;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.LeaderTransfer;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeaderHistoryTest {
  private static final long NOW = 1_000_000;
  private static final RangeDescriptor R = tiled(1, "n1", "n2", "n3").get(0);

  private static List<RangeStats> led(String leader) {
    return List.of(RangeStats.of(R, 100, 10, leader));
  }

  @Test
  void aFirstObservedLeader_startsNoCooldown() {
    LeaderHistory h = LeaderHistory.EMPTY.observe(led("n1"), NOW);
    assertThat(h.mayTransfer(R.rangeId(), "n2", NOW)).isTrue();
  }

  @Test
  void afterAChange_noTransferWithinTheCooldown_andNoReturnWithinAMinute() {
    LeaderHistory h = LeaderHistory.EMPTY.observe(led("n1"), NOW).observe(led("n2"), NOW + 1000);
    long changed = NOW + 1000;
    assertThat(h.mayTransfer(R.rangeId(), "n3", changed + LeaderHistory.COOLDOWN_MILLIS - 1)).isFalse();
    assertThat(h.mayTransfer(R.rangeId(), "n3", changed + LeaderHistory.COOLDOWN_MILLIS)).isTrue();
    assertThat(h.mayTransfer(R.rangeId(), "n1", changed + LeaderHistory.RETURN_MILLIS - 1)).as("A to B to A").isFalse();
    assertThat(h.mayTransfer(R.rangeId(), "n1", changed + Math.max(LeaderHistory.RETURN_MILLIS,
        LeaderHistory.COOLDOWN_MILLIS))).isTrue();
  }

  private static List<LeaderTransfer> transfer(String from, String to) {
    return List.of(new LeaderTransfer(R.rangeId(), from, to, Explanation.of("test").build()));
  }

  @Test
  void aPlannedTransfer_startsTheCooldown_beforeTheNewLeaderIsSeen() {
    // the transfer's effect reaches the controller a tick or more later: the same tick must not plan it again
    LeaderHistory h = LeaderHistory.EMPTY.observe(led("n1"), NOW).planned(transfer("n1", "n2"), NOW);
    LeaderHistory next = h.observe(led("n1"), NOW + 1000);
    assertThat(next.mayTransfer(R.rangeId(), "n2", NOW + 1000)).isFalse();
    assertThat(next.mayTransfer(R.rangeId(), "n2", NOW + LeaderHistory.COOLDOWN_MILLIS)).isTrue();
    assertThat(next.observe(List.of(), NOW + 2000).transfers()).as("forgotten with the range").isEmpty();
  }

  @Test
  void balancing_waitsOutTheCooldown() {
    ControllerConfig config = ControllerConfig.builder().splitQps(1000).build();
    List<RangeStats> rs = new ArrayList<>();
    for (RangeDescriptor d : tiled(9, "n1", "n2", "n3")) {
      rs.add(RangeStats.of(d, 100, 10, "n1"));
    }
    ClusterSnapshot s = ClusterSnapshot.of(nodes(NOW, "n1", "n2", "n3"), rs);
    List<RangeStats> before = new ArrayList<>();
    for (RangeStats r : rs) {
      before.add(RangeStats.of(r.range(), 100, 10, "n2"));
    }
    // every range was led by n2 until a second ago: n1 took them all (elections, say)
    LeaderHistory h = LeaderHistory.EMPTY.observe(before, NOW - 60_000).observe(rs, NOW - 1000);
    assertThat(RebalancePolicy.plan(s, config, NOW, Set.of(), h).leaderTransfers()).isEmpty();
    long later = NOW - 1000 + LeaderHistory.COOLDOWN_MILLIS;
    assertThat(RebalancePolicy.plan(s, config, later - 1, Set.of(), h.observe(rs, later - 1)).leaderTransfers())
        .isEmpty();
    List<LeaderTransfer> ts = RebalancePolicy.plan(s, config, later, Set.of(), h.observe(rs, later)).leaderTransfers();
    assertThat(ts).isNotEmpty().allSatisfy(t -> assertThat(t.fromNode()).isEqualTo("n1"));
  }

  /** The rules over the full log of observations, nothing forgotten. */
  private static boolean bruteForce(List<long[]> changes, Long plannedAt, String to, long now, List<String> names) {
    // changes: {time, index of the leader before, index of the leader after}
    if (plannedAt != null && now - plannedAt < LeaderHistory.COOLDOWN_MILLIS) {
      return false;
    }
    if (!changes.isEmpty() && now - changes.get(changes.size() - 1)[0] < LeaderHistory.COOLDOWN_MILLIS) {
      return false;
    }
    for (long[] c : changes) {
      if (names.get((int) c[1]).equals(to) && now - c[0] < LeaderHistory.RETURN_MILLIS) {
        return false;
      }
    }
    return true;
  }

  @Test
  void mayTransfer_agreesWithTheRulesOverTheFullLog() {
    List<String> names = List.of("n1", "n2", "n3");
    Property.named("leader history").cases(300).sizes(1, 80).check(g -> {
      LeaderHistory h = LeaderHistory.EMPTY;
      Map<Long, String> last = new HashMap<>();
      List<long[]> changes = new ArrayList<>();
      Long plannedAt = null;
      long now = 0;
      for (int i = 0; i < g.size(); i++) {
        now += g.between(0, 20_000);
        if (g.chance(0.05)) { // the range is not in this tick's snapshot: forgotten
          h = h.observe(List.of(), now);
          last.clear();
          changes.clear();
          plannedAt = null;
          continue;
        }
        String leader = g.chance(0.1) ? "" : names.get(g.nextInt(3));
        h = h.observe(led(leader), now);
        if (!leader.isEmpty()) {
          String prev = last.get(R.rangeId());
          if (prev != null && !prev.equals(leader)) {
            changes.add(new long[] {now, names.indexOf(prev), names.indexOf(leader)});
          }
          last.put(R.rangeId(), leader);
        }
        if (g.chance(0.1)) { // balancing planned a transfer this tick
          h = h.planned(transfer("n9", names.get(g.nextInt(3))), now); // whoever led: the plan alone counts
          plannedAt = now;
        }
        long at = now + g.between(0, 70_000);
        String to = names.get(g.nextInt(3));
        assertThat(h.mayTransfer(R.rangeId(), to, at)).as("to=%s at=%d changes=%d", to, at, changes.size())
            .isEqualTo(bruteForce(changes, plannedAt, to, at, names));
      }
    });
  }
}
