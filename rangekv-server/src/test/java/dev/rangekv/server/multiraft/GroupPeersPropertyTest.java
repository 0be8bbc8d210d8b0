package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupPeers} against a brute-force model (each open group's members; the nodes are their union,
 * recomputed at every step): seeded opens, member changes, repeats of the same members, changes that
 * arrive after their group closed, and closes. {@code -Drangekv.seed=N} replays a case.
 */
class GroupPeersPropertyTest {
  private static final String[] NODES = {"n1", "n2", "n3", "n4", "n5", "n6"};

  @Test
  void nodes_areTheUnionOfTheOpenGroupsMembers() {
    Property.named("group peers").cases(300).sizes(1, 200).check(this::runCase);
  }

  @Test
  void aNodeNoGroupNamesAnyMore_leavesTheSet() {
    GroupPeers peers = new GroupPeers();
    peers.members(1, Set.of("n1", "n2", "n3"), () -> true);
    peers.members(2, Set.of("n1", "n2", "n4"), () -> true);
    peers.members(1, Set.of("n1", "n2", "n5"), () -> true);
    assertThat(peers.nodes()).containsExactlyInAnyOrder("n1", "n2", "n4", "n5");
    peers.closed(2);
    assertThat(peers.nodes()).containsExactlyInAnyOrder("n1", "n2", "n5");
    peers.members(2, Set.of("n6"), () -> false); // a late report of the closed group
    assertThat(peers.nodes()).containsExactlyInAnyOrder("n1", "n2", "n5");
  }

  private void runCase(Gen gen) {
    GroupPeers peers = new GroupPeers();
    Map<Long, Set<String>> model = new HashMap<>();
    int groups = 1 + gen.nextInt(Math.max(1, gen.size() / 4));
    for (int step = 0; step < gen.size(); step++) {
      long rangeId = gen.nextInt(groups);
      int choice = gen.nextInt(10);
      if (choice < 6) {
        Set<String> members = new HashSet<>();
        int count = gen.nextInt(5);
        for (int i = 0; i < count; i++) {
          members.add(NODES[gen.nextInt(NODES.length)]);
        }
        if (gen.chance(0.2) && model.containsKey(rangeId)) {
          members = new HashSet<>(model.get(rangeId)); // the same members again (a periodic report)
        }
        boolean open = !gen.chance(0.15);
        peers.members(rangeId, members, () -> open);
        if (open) {
          model.put(rangeId, Set.copyOf(members));
        }
      } else if (choice < 9) {
        peers.closed(rangeId);
        model.remove(rangeId);
      }
      Set<String> expected = new HashSet<>();
      model.values().forEach(expected::addAll);
      assertThat(peers.nodes()).as("nodes after step %d", step).isEqualTo(expected);
    }
  }
}
