package dev.rangekv.sim.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.sim.partition.RangeSimulation.Inserts;
import dev.rangekv.sim.partition.RangeSimulation.Layout;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulationTest {
  private static final List<Key> KEYS = PlacementSimulation.keys("user:{i}", 0, 10_000);

  @Test
  void keys_replaceThePlaceholderWithEachIndex() {
    assertThat(PlacementSimulation.keys("user:{i}:x", 5, 2))
        .containsExactly(Key.utf8("user:5:x"), Key.utf8("user:6:x"));
  }

  @Test
  void skew_hotKeysOverloadOneNode_andSaltingSpreadsThem() {
    // Seed 004 "Try it" 3: 1% of keys get 100 times the traffic; salt into four sub-keys.
    SkewSimulation.Result r = SkewSimulation.run(Scheme.rendezvous(Hash64.BLAKE2B_64),
        PlacementSimulation.numberedNodes(10), KEYS, new SkewSimulation.Config(100, 100, 4));
    assertThat(r.busiestKeysShare()).isLessThan(0.12);
    assertThat(r.peakLoadSalted()).isLessThanOrEqualTo(r.peakLoad());
    assertThat(r.hotKeyNodesSalted()).isBetween(1, 4);
  }

  @Test
  void skew_oneKeyWithMostOfTheTraffic_cannotBeBalancedWithoutSalting() {
    SkewSimulation.Result r = SkewSimulation.run(Scheme.jump(Hash64.XXH64), PlacementSimulation.numberedNodes(8),
        KEYS, new SkewSimulation.Config(1, 10_000, 16));
    // One key carries half of all requests: its node holds at least half the load, four times the mean.
    assertThat(r.peakLoad()).isGreaterThan(4.0);
    assertThat(r.peakLoadSalted()).isLessThan(r.peakLoad() / 2);
  }

  @Test
  void skew_boundedLoad_placesTheSaltedSubKeysUnderItsCap() {
    SkewSimulation.Result r = SkewSimulation.run(Scheme.boundedLoad(100, 1.10, Hash64.XXH64),
        PlacementSimulation.numberedNodes(8), KEYS, new SkewSimulation.Config(0, 1, 4));
    assertThat(r.busiestKeysShare() * 8).isLessThanOrEqualTo(1.10 + 1e-9 + 8.0 / KEYS.size());
  }

  @Test
  void saltedKeys_useTheSeedsHashSuffixFormat() {
    assertThat(SkewSimulation.saltedKey(Key.utf8("plays:song_7781"), 3)).isEqualTo(Key.utf8("plays:song_7781#3"));
  }

  private static final RangeSimulation.Config CFG = new RangeSimulation.Config(20_000, 4, 16, 1_000, 1_000);

  @Test
  void monotonicInserts_sendEveryWriteOfAWindowToOneNode_whateverTheLayout() {
    // Windows shorter than the ~500 inserts between two splits of the top range: size splits move
    // the hot spot to another node, but at any moment one node takes every insert (seed 003).
    RangeSimulation.Config shortWindows = new RangeSimulation.Config(20_000, 4, 16, 1_000, 100);
    for (Layout layout : Layout.values()) {
      RangeSimulation.Result r = RangeSimulation.run(layout, Inserts.MONOTONIC, shortWindows);
      assertThat(r.nodeShareLastWindow()).as(layout.name()).isEqualTo(1.0);
      // A window that straddles a range boundary splits between two nodes; otherwise one takes all.
      assertThat(r.meanWindowNodeShare()).as(layout.name()).isGreaterThan(0.9);
    }
  }

  @Test
  void uniformInserts_spreadOverAllNodes() {
    for (Layout layout : Layout.values()) {
      RangeSimulation.Result r = RangeSimulation.run(layout, Inserts.UNIFORM, CFG);
      assertThat(r.meanWindowNodeShare()).as(layout.name()).isLessThan(0.4);
      assertThat(r.rangesWrittenLastWindow()).as(layout.name()).isGreaterThan(4);
    }
  }

  @Test
  void sizeSplits_growTheRangeCount_andKeepEachRangeUnderTheThreshold() {
    RangeSimulation.Result r = RangeSimulation.run(Layout.SIZE_SPLIT, Inserts.UNIFORM, CFG);
    assertThat(r.ranges()).isGreaterThanOrEqualTo(20_000 / 1_000);
    RangeSimulation.Result pre = RangeSimulation.run(Layout.PRE_SPLIT, Inserts.UNIFORM, CFG);
    assertThat(pre.ranges()).isEqualTo(16);
  }

  @Test
  void rangeOf_findsTheGreatestStartAtOrBelowTheKey() {
    List<Key> starts = List.of(Key.EMPTY, Key.utf8("g"), Key.utf8("p"));
    assertThat(RangeSimulation.rangeOf(starts, Key.utf8("a"))).isZero();
    assertThat(RangeSimulation.rangeOf(starts, Key.utf8("g"))).isEqualTo(1);
    assertThat(RangeSimulation.rangeOf(starts, Key.utf8("zz"))).isEqualTo(2);
  }
}
