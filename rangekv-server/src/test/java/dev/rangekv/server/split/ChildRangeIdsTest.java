package dev.rangekv.server.split;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChildRangeIdsTest {
  @Test
  void childIds_areDeterministic_positive_andDistinctAcrossParentsAndGenerations() {
    assertThat(ChildRangeIds.childOf(1, 0)).isEqualTo(ChildRangeIds.childOf(1, 0));
    Set<Long> ids = new HashSet<>();
    for (long parent = 1; parent <= 300; parent++) {
      for (long gen = 0; gen < 300; gen++) {
        long id = ChildRangeIds.childOf(parent, gen);
        assertThat(id).isGreaterThan(ChildRangeIds.ROOT);
        ids.add(id);
      }
    }
    assertThat(ids).hasSize(300 * 300);
  }
}
