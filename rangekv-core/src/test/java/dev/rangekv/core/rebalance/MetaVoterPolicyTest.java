package dev.rangekv.core.rebalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MetaVoterPolicyTest {
  private static Map<String, String> live(String... idZone) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String s : idZone) {
      String[] p = s.split(":", -1);
      m.put(p[0], p.length > 1 ? p[1] : "");
    }
    return m;
  }

  @Test
  void aLoneBootstrapVoter_waitsForTwoCandidates_thenGrowsOneAtATime() {
    assertThat(MetaVoterPolicy.next(List.of("n1"), live("n1", "n2"), 3)).isEmpty();
    Optional<MetaVoterPolicy.Change> c = MetaVoterPolicy.next(List.of("n1"), live("n1", "n4", "n3", "n2"), 3);
    assertThat(c).get().satisfies(ch -> {
      assertThat(ch.voters()).containsExactly("n1", "n2");
      assertThat(ch.added()).isEqualTo("n2");
      assertThat(ch.removed()).isEmpty();
      assertThat(ch.why().reason()).isEqualTo("meta range below its voter target");
    });
    assertThat(MetaVoterPolicy.next(List.of("n1", "n2", "n3"), live("n1", "n2", "n3", "n4"), 3)).isEmpty();
  }

  @Test
  void twoVoters_growToThree() {
    assertThat(MetaVoterPolicy.next(List.of("n1", "n2"), live("n1", "n2", "n3"), 3)).get()
        .satisfies(ch -> assertThat(ch.voters()).containsExactly("n1", "n2", "n3"));
  }

  @Test
  void addedNodes_spreadOverZones() {
    assertThat(MetaVoterPolicy.next(List.of("n1"), live("n1:a", "n2:a", "n3:b", "n4:b", "n5:c"), 3)).get()
        .satisfies(ch -> assertThat(ch.added()).isEqualTo("n3"));
    assertThat(MetaVoterPolicy.next(List.of("n1", "n3"), live("n1:a", "n2:a", "n3:b", "n4:b", "n5:c"), 3)).get()
        .satisfies(ch -> assertThat(ch.added()).isEqualTo("n5"));
  }

  @Test
  void aDeadVoter_isReplacedByALiveNodeInAnUncoveredZone() {
    Optional<MetaVoterPolicy.Change> c = MetaVoterPolicy.next(List.of("n1", "n2", "n3"),
        live("n1:a", "n2:b", "n4:a", "n5:c"), 3);
    assertThat(c).get().satisfies(ch -> {
      assertThat(ch.voters()).containsExactly("n1", "n2", "n5");
      assertThat(ch.removed()).contains("n3");
      assertThat(ch.why().reason()).isEqualTo("meta voter on a dead node");
    });
  }

  @Test
  void votersSharingAZone_swapAFollowerForANodeInAnUncoveredZone() {
    // n2 (zone b) was replaced by n4 (zone a) while b was down; b's node is back
    Map<String, String> nodes = live("n1:a", "n2:b", "n3:c", "n4:a", "n5:a");
    assertThat(MetaVoterPolicy.next(List.of("n1", "n4", "n3"), Optional.of("n1"), nodes, 3)).get().satisfies(ch -> {
      assertThat(ch.voters()).containsExactly("n1", "n2", "n3");
      assertThat(ch.removed()).contains("n4");
      assertThat(ch.why().reason()).isEqualTo("meta voters share a zone while a live node offers one they do not cover");
    });
    assertThat(MetaVoterPolicy.next(List.of("n1", "n4", "n3"), Optional.of("n4"), nodes, 3)).get()
        .satisfies(ch -> assertThat(ch.removed()).as("never the leader").contains("n1"));
    assertThat(MetaVoterPolicy.next(List.of("n1", "n4", "n3"), Optional.empty(), nodes, 3)).isEmpty();
    assertThat(MetaVoterPolicy.next(List.of("n1", "n2", "n3"), Optional.of("n1"), nodes, 3)).isEmpty();
  }

  @Test
  void property_repeatedChangesOnStableLiveNodes_endWithVotersOverAsManyZonesAsOffered() {
    Property.named("meta voters respread").cases(1000).sizes(1, 9).check(g -> {
      Map<String, String> live = new LinkedHashMap<>();
      int nodes = g.between(1, 9);
      for (int i = 1; i <= nodes; i++) {
        live.put("n" + i, "z" + g.nextInt(4));
      }
      List<String> voters = new ArrayList<>(List.of("n1"));
      String leader = "n1";
      for (int step = 0; ; step++) {
        assertThat(step).as("changes before a fixed point").isLessThanOrEqualTo(2 * nodes + 2);
        Optional<MetaVoterPolicy.Change> c = MetaVoterPolicy.next(voters, Optional.of(leader), live, 3);
        if (c.isEmpty()) {
          break;
        }
        assertThat(c.get().removed()).isNotEqualTo(Optional.of(leader));
        voters = c.get().voters();
      }
      Set<String> zones = new HashSet<>(live.values());
      Set<String> voterZones = new HashSet<>();
      voters.forEach(v -> voterZones.add(live.get(v)));
      assertThat(voterZones).as("voters %s over %s", voters, live)
          .hasSize(Math.min(voters.size(), zones.size()));
      assertThat(voters).contains(leader).hasSize(Math.min(3, nodes - (nodes % 2 == 0 && nodes < 3 ? 1 : 0)));
    });
  }

  @Test
  void withoutALiveMajority_nothingIsChanged() {
    assertThat(MetaVoterPolicy.next(List.of("n1", "n2", "n3"), live("n1", "n4", "n5"), 3)).isEmpty();
  }

  @Test
  void anEvenTarget_isRefused() {
    assertThatThrownBy(() -> MetaVoterPolicy.next(List.of("n1"), live("n1"), 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("odd");
  }

  @Test
  void property_changesMoveTowardsAnOddTargetOnLiveNodes() {
    Property.named("meta voter changes").cases(1000).sizes(1, 9).check(g -> {
      int nodes = g.between(1, Math.max(1, g.size()));
      Map<String, String> live = new LinkedHashMap<>();
      List<String> voters = new ArrayList<>();
      for (int i = 1; i <= nodes; i++) {
        String id = "n" + i;
        if (g.chance(0.7)) {
          live.put(id, g.chance(0.5) ? "" : "z" + g.nextInt(3));
        }
        if (voters.size() < 5 && g.chance(0.4)) {
          voters.add(id);
        }
      }
      int target = g.pick(List.of(1, 3, 5));
      Optional<MetaVoterPolicy.Change> c = MetaVoterPolicy.next(voters, live, target);
      Set<String> nonVoters = new HashSet<>(live.keySet());
      voters.forEach(nonVoters::remove);
      long liveVoters = voters.stream().filter(live::containsKey).count();
      boolean dead = liveVoters < voters.size();
      // Brute force over every reachable size: grow (one node) towards the largest odd size within
      // reach, else replace.
      int reachable = voters.size();
      for (int size = voters.size() + 1; size <= Math.min(target, voters.size() + nonVoters.size()); size++) {
        if (size % 2 == 1) {
          reachable = size;
        }
      }
      int best = reachable;
      boolean grow = best > voters.size();
      boolean replace = !grow && !nonVoters.isEmpty() && dead && liveVoters * 2 > voters.size();
      assertThat(c.isPresent()).as("change due for voters=%s live=%s target=%d", voters, live, target)
          .isEqualTo(grow || replace);
      c.ifPresent(ch -> {
        assertThat(ch.added()).isIn(nonVoters);
        assertThat(ch.voters()).doesNotHaveDuplicates().contains(ch.added());
        if (grow) {
          assertThat(ch.voters()).hasSize(voters.size() + 1);
          assertThat(ch.voters().subList(0, voters.size())).isEqualTo(voters);
          assertThat(ch.removed()).isEmpty();
        } else {
          assertThat(ch.removed()).get().isIn(voters).isNotIn(live.keySet());
          assertThat(ch.voters()).hasSize(voters.size()).doesNotContain(ch.removed().get());
        }
        Set<String> covered = new HashSet<>();
        voters.stream().filter(live::containsKey).map(live::get).filter(z -> !z.isEmpty()).forEach(covered::add);
        if (nonVoters.stream().anyMatch(n -> !covered.contains(live.get(n)))) {
          assertThat(covered).as("added node's zone").doesNotContain(live.get(ch.added()));
        }
      });
    });
  }
}
