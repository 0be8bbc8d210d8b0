package dev.rangekv.core.rangemap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RangeIdsTest {
  @Test
  void aNewAllocator_grantsTheIdAfterTheRoot() {
    RangeIds.Grant g = RangeIds.initial().grant(1);
    assertThat(g.block()).isEqualTo(new RangeIdBlock(2, 1));
    assertThat(g.after().next()).isEqualTo(3);
  }

  @Test
  void grants_followEachOther_withoutOverlap() {
    RangeIds.Grant a = RangeIds.initial().grant(5);
    RangeIds.Grant b = a.after().grant(3);
    assertThat(a.block()).isEqualTo(new RangeIdBlock(2, 5));
    assertThat(b.block()).isEqualTo(new RangeIdBlock(7, 3));
  }

  @Test
  void anIdSeenInUse_pushesLaterGrantsAboveIt() {
    RangeIds ids = RangeIds.initial().seen(40);
    assertThat(ids.grant(2).block()).isEqualTo(new RangeIdBlock(41, 2));
    assertThat(ids.seen(40)).isSameAs(ids);
    assertThat(ids.seen(7)).isSameAs(ids);
    assertThat(ids.seen(0)).isSameAs(ids);
  }

  @Test
  void badCounts_andExhaustedIds_areRefused() {
    assertThatThrownBy(() -> RangeIds.initial().grant(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RangeIds.initial().grant(RangeIds.MAX_BLOCK + 1))
        .isInstanceOf(IllegalArgumentException.class);
    RangeIds full = RangeIds.initial().seen(Long.MAX_VALUE);
    assertThatThrownBy(() -> full.grant(1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(RangeIds.initial().seen(Long.MAX_VALUE - 2).grant(1).block().first()).isEqualTo(Long.MAX_VALUE - 1);
    assertThatThrownBy(() -> new RangeIds(1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aBlock_knowsItsIds() {
    RangeIdBlock b = new RangeIdBlock(10, 3);
    assertThat(b.last()).isEqualTo(12);
    assertThat(b.contains(9)).isFalse();
    assertThat(b.contains(10)).isTrue();
    assertThat(b.contains(12)).isTrue();
    assertThat(b.contains(13)).isFalse();
  }
}
