package dev.rangekv.core.rangemap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.List;
import org.junit.jupiter.api.Test;

class RangeMapTest {
  private static final List<String> NODES = List.of("n1", "n2", "n3");

  private static Key k(String s) {
    return Key.utf8(s);
  }

  private static RangeMap abc() {
    return RangeMap.presplit(List.of(k("b"), k("d")), 1, NODES);
  }

  @Test
  void lookup_findsGreatestStartAtOrBelowKey() {
    RangeMap m = abc();
    assertThat(m.lookup(Key.EMPTY).rangeId()).isEqualTo(1);
    assertThat(m.lookup(k("a")).rangeId()).isEqualTo(1);
    assertThat(m.lookup(k("b")).rangeId()).isEqualTo(2);
    assertThat(m.lookup(k("c\u00ff")).rangeId()).isEqualTo(2);
    assertThat(m.lookup(k("d")).rangeId()).isEqualTo(3);
    assertThat(m.lookup(Key.fromHex("ffffffffffffffffff")).rangeId()).isEqualTo(3);
  }

  @Test
  void construction_rejectsBrokenTiling_namingTheInvariant() {
    RangeDescriptor a = new RangeDescriptor(1, Key.EMPTY, RangeEnd.at(k("b")), NODES, 1);
    RangeDescriptor c = new RangeDescriptor(2, k("c"), RangeEnd.INFINITY, NODES, 1);
    RangeDescriptor fromA = new RangeDescriptor(3, k("a"), RangeEnd.INFINITY, NODES, 1);
    assertThatThrownBy(() -> RangeMap.of(List.of(a, c))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("tiling invariant").hasMessageContaining("gap");
    assertThatThrownBy(() -> RangeMap.of(List.of(a, fromA))).hasMessageContaining("overlap");
    assertThatThrownBy(() -> RangeMap.of(List.of(c))).hasMessageContaining("empty key");
    assertThatThrownBy(() -> RangeMap.of(List.of(a))).hasMessageContaining("+infinity");
    assertThatThrownBy(() -> RangeMap.of(List.of())).hasMessageContaining("at least one range");
  }

  @Test
  void split_keepsLeftIdGivesRightNewId_andBumpsBothGenerations() {
    RangeMap m = abc().split(k("c"), 9);
    assertThat(m.ranges()).extracting(RangeDescriptor::toString).containsExactly(
        "r1[\"\", \"b\")@g1[n1, n2, n3]", "r2[\"b\", \"c\")@g2[n1, n2, n3]", "r9[\"c\", \"d\")@g2[n1, n2, n3]",
        "r3[\"d\", +inf)@g1[n1, n2, n3]");
    assertThat(m.version()).isEqualTo(1);
    assertThat(m.byId(9)).map(RangeDescriptor::start).contains(k("c"));
  }

  @Test
  void split_atExistingBoundary_isRejected() {
    assertThatThrownBy(() -> abc().split(k("b"), 9)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already a range boundary");
    assertThatThrownBy(() -> abc().split(Key.EMPTY, 9)).hasMessageContaining("already a range boundary");
    assertThatThrownBy(() -> abc().split(k("c"), 3)).hasMessageContaining("already in use");
  }

  @Test
  void merge_joinsRightNeighbour_withMaxGenerationPlusOne() {
    RangeMap m = abc().split(k("c"), 9).merge(1);
    assertThat(m.ranges()).hasSize(3);
    RangeDescriptor merged = m.get(0);
    assertThat(merged.rangeId()).isEqualTo(1);
    assertThat(merged.end()).isEqualTo(RangeEnd.at(k("c")));
    assertThat(merged.generation()).isEqualTo(3);
    assertThat(m.byId(2)).isEmpty();
  }

  @Test
  void merge_ofLastRangeOrUnknownIdOrNonColocated_isRejected() {
    assertThatThrownBy(() -> abc().merge(3)).hasMessageContaining("no right neighbour");
    assertThatThrownBy(() -> abc().merge(42)).hasMessageContaining("no range with id 42");
    RangeMap moved = abc().apply(new RangeDescriptor(2, k("b"), RangeEnd.at(k("d")), List.of("n4"), 2));
    assertThatThrownBy(() -> moved.merge(1)).hasMessageContaining("co-located");
  }

  @Test
  void apply_installsNewerDescriptor_andTrimsOlderNeighbours() {
    RangeMap cache = RangeMap.initial(1, NODES);
    RangeDescriptor fresh = new RangeDescriptor(7, k("m"), RangeEnd.at(k("p")), NODES, 3);
    RangeMap m = cache.apply(fresh);
    assertThat(m.ranges()).extracting(RangeDescriptor::toString).containsExactly(
        "r1[\"\", \"m\")@g1[n1, n2, n3]", "r7[\"m\", \"p\")@g3[n1, n2, n3]", "r1[\"p\", +inf)@g1[n1, n2, n3]");
    assertThat(m.lookup(k("z")).rangeId()).isEqualTo(1);
  }

  @Test
  void apply_ofStaleOrKnownDescriptor_returnsSameMap() {
    RangeMap m = abc().split(k("c"), 9);
    assertThat(m.apply(new RangeDescriptor(2, k("b"), RangeEnd.at(k("d")), NODES, 1))).isSameAs(m);
    assertThat(m.apply(m.get(1))).isSameAs(m);
    // newer than r9 but not than r2: stale for part of its span, so ignored as a whole
    assertThat(m.apply(new RangeDescriptor(2, k("b"), RangeEnd.at(k("d")), NODES, 2))).isSameAs(m);
  }

  @Test
  void scanPlan_clipsPiecesToRanges_inBothDirections() {
    RangeMap m = abc();
    List<ScanPiece> plan = m.scanPlan(k("a"), RangeEnd.at(k("d0")));
    assertThat(plan).extracting(p -> p.range().rangeId()).containsExactly(1L, 2L, 3L);
    assertThat(plan.get(0).lo()).isEqualTo(k("a"));
    assertThat(plan.get(0).hi()).isEqualTo(RangeEnd.at(k("b")));
    assertThat(plan.get(2).lo()).isEqualTo(k("d"));
    assertThat(plan.get(2).hi()).isEqualTo(RangeEnd.at(k("d0")));
    assertThat(m.scanPlanReverse(k("a"), RangeEnd.at(k("d0")))).extracting(p -> p.range().rangeId())
        .containsExactly(3L, 2L, 1L);
    assertThat(m.scanPlan(k("c"), RangeEnd.at(k("c")))).isEmpty();
    assertThat(m.scanPlan(k("b"), RangeEnd.at(k("d")))).extracting(p -> p.range().rangeId()).containsExactly(2L);
  }

  @Test
  void groupSorted_givesOneRunPerRange() {
    List<RoutedBatch> batches = abc().groupSorted(List.of(k("a"), k("a1"), k("c"), k("x"), k("y")));
    assertThat(batches).extracting(b -> b.range().rangeId()).containsExactly(1L, 2L, 3L);
    assertThat(batches.get(2).keys()).containsExactly(k("x"), k("y"));
  }
}
