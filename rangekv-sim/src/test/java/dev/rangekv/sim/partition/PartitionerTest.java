package dev.rangekv.sim.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.rangekv.core.key.Key;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionerTest {
  private static final List<Key> KEYS = PlacementSimulation.keys("user:{i}", 0, 20_000);

  private static Map<String, Integer> counts(Partitioner p) {
    Map<String, Integer> m = new HashMap<>();
    for (Key k : KEYS) {
      m.merge(p.owner(k).name(), 1, Integer::sum);
    }
    return m;
  }

  private static List<Node> withHeavyNode() {
    List<Node> ns = new java.util.ArrayList<>(PlacementSimulation.numberedNodes(5));
    ns.set(0, ns.get(0).withWeight(2));
    return ns;
  }

  @Test
  void ring_nodeWithTwiceTheWeight_getsAboutTwiceTheKeys() {
    Map<String, Integer> c = counts(new HashRing(withHeavyNode(), 200, Hash64.XXH64));
    double share = c.get("0") / (double) KEYS.size();
    assertThat(share).isCloseTo(2.0 / 6, within(0.04));
  }

  @Test
  void rendezvous_weightedScores_giveSharesProportionalToWeight() {
    Map<String, Integer> c = counts(new Rendezvous(withHeavyNode(), Hash64.XXH64));
    assertThat(c.get("0") / (double) KEYS.size()).isCloseTo(2.0 / 6, within(0.02));
    assertThat(c.get("3") / (double) KEYS.size()).isCloseTo(1.0 / 6, within(0.02));
  }

  @Test
  void maglev_weightedNode_getsTwiceTheTableSlots() {
    int[] table = new Maglev(withHeavyNode(), 65_537, Hash64.XXH64).table();
    int zero = 0;
    for (int e : table) {
      zero += e == 0 ? 1 : 0;
    }
    assertThat(zero / 65_537.0).isCloseTo(2.0 / 6, within(0.001));
  }

  @Test
  void maglev_rejectsTableSizesThatAreNotPrime() {
    assertThatThrownBy(() -> new Maglev(PlacementSimulation.numberedNodes(3), 65_536, Hash64.XXH64))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void maglev_addingANode_movesLittleMoreThanItsShare() {
    PlacementSimulation.Churn c = PlacementSimulation.churn(Scheme.maglev(Maglev.DEFAULT_TABLE_SIZE, Hash64.XXH64),
        KEYS, PlacementSimulation.numberedNodes(10), PlacementSimulation.numberedNodes(11));
    assertThat(c.movedShare()).isBetween(1.0 / 11, 0.15);
    assertThat(c.peakAfter()).isLessThan(1.1);
  }

  @Test
  void directory_pinnedKeysGoToTheirNode_andEveryOtherKeyToTheFallback() {
    Partitioner fallback = new Rendezvous(PlacementSimulation.numberedNodes(4), Hash64.XXH64);
    Node big = Node.of("label-shard");
    Key label = Key.utf8("label:big");
    Directory d = new Directory(Map.of(), fallback).with(label, big);
    assertThat(d.owner(label)).isEqualTo(big);
    assertThat(d.nodes()).contains(big).containsAll(fallback.nodes());
    for (Key k : KEYS.subList(0, 100)) {
      assertThat(d.owner(k)).isEqualTo(fallback.owner(k));
    }
    assertThat(Replicas.place(d, label, 3, false)).startsWith(big).hasSize(3);
  }

  @Test
  void replicas_withZones_skipSecondNodeOfAZone() {
    List<Node> ns = List.of(Node.of("a").inZone("z1"), Node.of("b").inZone("z1"), Node.of("c").inZone("z2"));
    Partitioner p = new HashRing(ns, 50, Hash64.XXH64);
    for (Key k : KEYS.subList(0, 200)) {
      List<Node> r = Replicas.place(p, k, 3, true);
      assertThat(r).hasSize(2);
      assertThat(r.stream().map(Node::zone).distinct().count()).isEqualTo(2);
    }
  }

  @Test
  void removingANode_fromTheRing_movesOnlyItsKeys() {
    List<Node> ten = PlacementSimulation.numberedNodes(10);
    List<Node> nine = new java.util.ArrayList<>(ten);
    nine.remove(3);
    PlacementSimulation.Churn c = PlacementSimulation.churn(Scheme.ring(100, Hash64.XXH64), KEYS, ten, nine);
    assertThat(c.minimal()).isTrue();
    assertThat(c.movedShare()).isBetween(0.05, 0.15);
  }

  @Test
  void zoneConstraint_changesNothingWhenEveryNodeHasItsOwnZone_andSomethingWhenZonesAreShared() {
    List<Key> keys = KEYS.subList(0, 2_000);
    Partitioner ownZones = new Rendezvous(PlacementSimulation.zonedNodes(9, 9), Hash64.XXH64);
    assertThat(PlacementSimulation.zoneConstraintChangeShare(ownZones, keys, 3)).isZero();
    Partitioner shared = new Rendezvous(PlacementSimulation.zonedNodes(9, 3), Hash64.XXH64);
    // Top 3 of 9 in 3 zones of 3: all distinct zones with probability 27/84, so about 68% change.
    assertThat(PlacementSimulation.zoneConstraintChangeShare(shared, keys, 3)).isCloseTo(1 - 27.0 / 84, within(0.04));
  }

  @Test
  void nodes_areValidated() {
    assertThatThrownBy(() -> new Node("", 1, "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Node("a", 0, "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModN(List.of(), Hash64.XXH64)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModN(List.of(Node.of("a"), Node.of("a")), Hash64.XXH64))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate");
  }
}
