package dev.rangekv.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PropertyTest {

  @Test
  void sizes_growFromMinToMax() {
    List<Integer> sizes = new ArrayList<>();
    Property.named("sizes").cases(5).sizes(10, 50).check(g -> sizes.add(g.size()));
    assertThat(sizes).containsExactly(10, 20, 30, 40, 50);
  }

  @Test
  void sameSeed_replaysSameCases() {
    String old = System.getProperty(Property.SEED_PROPERTY);
    try {
      System.setProperty(Property.SEED_PROPERTY, "42");
      List<Long> first = new ArrayList<>();
      List<Long> second = new ArrayList<>();
      assertThat(Property.named("a").cases(20).check(g -> first.add(g.nextLong()))).isEqualTo(42L);
      Property.named("b").cases(20).check(g -> second.add(g.nextLong()));
      assertThat(first).isEqualTo(second).doesNotHaveDuplicates();
    } finally {
      if (old == null) {
        System.clearProperty(Property.SEED_PROPERTY);
      } else {
        System.setProperty(Property.SEED_PROPERTY, old);
      }
    }
  }

  @Test
  void failure_namesSeedCaseAndSize() {
    assertThatThrownBy(() -> Property.named("fails-at-3").cases(10).sizes(0, 9).check(g -> {
      if (g.size() == 3) {
        throw new IllegalStateException("boom");
      }
    }))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("fails-at-3")
        .hasMessageContaining("case 3")
        .hasMessageContaining("-Drangekv.seed=")
        .hasRootCauseMessage("boom");
  }

  @Test
  void badSeedProperty_isRejectedClearly() {
    String old = System.getProperty(Property.SEED_PROPERTY);
    try {
      System.setProperty(Property.SEED_PROPERTY, "abc");
      assertThatThrownBy(() -> Property.named("x").check(g -> { }))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must be a long");
    } finally {
      if (old == null) {
        System.clearProperty(Property.SEED_PROPERTY);
      } else {
        System.setProperty(Property.SEED_PROPERTY, old);
      }
    }
  }
}
