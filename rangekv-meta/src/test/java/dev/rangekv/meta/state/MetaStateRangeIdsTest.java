package dev.rangekv.meta.state;

import static dev.rangekv.meta.state.MetaStateTest.bootstrap;
import static dev.rangekv.meta.state.MetaStateTest.range;
import static dev.rangekv.meta.state.MetaStateTest.report;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.proto.meta.AllocateRangeIds;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaSnapshot;
import org.junit.jupiter.api.Test;

class MetaStateRangeIdsTest {
  private static MetaCommand allocate(int count) {
    return MetaCommand.newBuilder().setAtMillis(5).setAllocateRangeIds(AllocateRangeIds.newBuilder().setCount(count))
        .build();
  }

  @Test
  void aNewCluster_grantsSmallIdsAfterTheRoot() {
    MetaState s = MetaState.empty().apply(bootstrap(1, range(RangeIds.ROOT, "", null, 0)));
    assertThat(s.rangeIds().next()).isEqualTo(2);
    MetaState after = s.apply(allocate(3)).apply(allocate(1));
    assertThat(after.rangeIds().next()).isEqualTo(6);
  }

  @Test
  void grants_surviveASnapshotRoundTrip() throws Exception {
    MetaState s = MetaState.empty().apply(bootstrap(1, range(1, "", null, 0))).apply(allocate(7));
    MetaState back = MetaState.fromSnapshot(MetaSnapshot.parseFrom(s.toSnapshot().toByteArray()));
    assertThat(back.rangeIds()).isEqualTo(new RangeIds(9));
    assertThat(back.apply(allocate(1)).rangeIds().next()).isEqualTo(10);
  }

  @Test
  void aSnapshotOlderThanTheAllocator_grantsAboveEveryIdItHolds() {
    MetaState s = MetaState.empty().apply(bootstrap(1, range(1, "", "m", 1), range(8493070160007570742L, "m", null, 1)));
    MetaSnapshot old = s.toSnapshot().toBuilder().clearNextRangeId().build();
    assertThat(MetaState.fromSnapshot(old).rangeIds().next()).isEqualTo(8493070160007570743L);
  }

  @Test
  void reportedRanges_theAllocatorDidNotGrant_pushGrantsAboveThem() {
    MetaState s = MetaState.empty().apply(bootstrap(1, range(1, "", null, 0)))
        .apply(report(2, range(1, "", "m", 1), range(40, "m", null, 1)));
    assertThat(s.rangeIds().next()).isEqualTo(41);
    assertThat(s.apply(report(3, range(12, "m", null, 0))).rangeIds().next()).isEqualTo(41);
  }

  @Test
  void aGrantOfNoIds_isRefused_andChangesNothing() {
    MetaState s = MetaState.empty().apply(bootstrap(1, range(1, "", null, 0)));
    assertThatThrownBy(() -> s.apply(allocate(0))).isInstanceOf(MalformedMetaCommandException.class);
    assertThatThrownBy(() -> s.apply(allocate(RangeIds.MAX_BLOCK + 1))).isInstanceOf(MalformedMetaCommandException.class);
    assertThat(s.rangeIds().next()).isEqualTo(2);
  }
}
