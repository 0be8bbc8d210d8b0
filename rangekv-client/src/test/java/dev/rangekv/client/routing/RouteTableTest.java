package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteTableTest {
  final RangeMap v1 = RangeMap.initial(1, List.of("n1"));
  final RangeMap v2 = v1.split(Key.utf8("m"), 2);
  final RangeMap v3 = v2.split(Key.utf8("t"), 3);

  @Test
  void aLaggingReplicasOlderDescriptors_neverEvictNewerCacheEntries() {
    RouteTable fresh = new RouteTable(v3, Map.of("n1", "a:1"), Map.of());
    RouteTable after = fresh.withMoved(v1.ranges(), Map.of());
    assertThat(after).isSameAs(fresh);
    assertThat(fresh.withMoved(v2.ranges(), Map.of()).map().ranges()).isEqualTo(v3.ranges());
  }

  @Test
  void newerDescriptors_replaceWhatTheyOverlap() {
    RouteTable stale = new RouteTable(v1, Map.of(), Map.of());
    RouteTable after = stale.withMoved(List.of(v3.lookup(Key.utf8("n")), v3.lookup(Key.utf8("u"))), Map.of("n1", "a:1"));
    assertThat(after.map().lookup(Key.utf8("u"))).isEqualTo(v3.lookup(Key.utf8("u")));
    assertThat(after.map().lookup(Key.utf8("n"))).isEqualTo(v3.lookup(Key.utf8("n")));
    assertThat(after.addresses()).containsEntry("n1", "a:1");
    RangeDescriptor trimmed = after.map().lookup(Key.utf8("a"));
    assertThat(trimmed.generation()).isEqualTo(1); // outside the news: trimmed stale guess, costs one RANGE_MOVED
  }

  @Test
  void aSnapshotFold_keepsNewerCachedEntriesOverAStaleSource() {
    RouteTable fresh = new RouteTable(v3, Map.of(), Map.of());
    RouteTable folded = fresh.withSnapshot(new RangeSnapshot(v1.ranges(), Map.of("n1", "a:1"), Map.of(1L, "n1")));
    assertThat(folded.map().ranges()).isEqualTo(v3.ranges());
    assertThat(folded.leader(1)).isEqualTo("n1");
  }

  @Test
  void leaderHints_areRecordedWithTheirAddress() {
    RouteTable t = RouteTable.empty().withLeader(4, "n2", "h:2");
    assertThat(t.leader(4)).isEqualTo("n2");
    assertThat(t.addresses()).containsEntry("n2", "h:2");
    assertThat(t.withLeader(4, "n2", "")).isSameAs(t);
  }
}
