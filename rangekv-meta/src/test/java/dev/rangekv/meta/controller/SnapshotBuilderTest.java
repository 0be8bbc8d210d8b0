package dev.rangekv.meta.controller;

import static dev.rangekv.meta.controller.ControllerTest.k;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MapDelta;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WeightedKeyProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.StatsProtos;
import dev.rangekv.proto.meta.HeartbeatRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SnapshotBuilderTest {
  /** A view whose range 3 is provisional. */
  record ProvisionalView(MetaView inner) implements MetaView {
    public long mapVersion() { return inner.mapVersion(); }
    public List<RangeDescriptor> ranges() { return inner.ranges(); }
    public boolean provisional(long rangeId) { return rangeId == 3; }
    public RangeDescriptor lookup(Key key) { return inner.lookup(key); }
    public Optional<RangeDescriptor> range(long rangeId) { return inner.range(rangeId); }
    public Map<String, String> replicaAddresses(RangeDescriptor d) { return inner.replicaAddresses(d); }
    public MapDelta changesSince(long v) { return inner.changesSince(v); }
    public List<dev.rangekv.core.cluster.NodeInfo> nodes() { return inner.nodes(); }
    public List<dev.rangekv.core.cluster.Event> events(long a, int l, long r) { return inner.events(a, l, r); }
  }

  @Test
  void measuredRanges_carryTheirLeadersStats_othersEnterWithZeros_provisionalOnesAreLeftOut() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(k(100), k(200)), List.of("n1", "n2", "n3"));
    c.put(k(1), 500);
    c.load(1, 12.5, List.of(
        WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k(1))).setWeight(3).build(),
        WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k(2))).setWeight(-1).build()));
    Harness h = new Harness(c).start();
    StatsBook book = new StatsBook();
    HeartbeatRequest hb = c.heartbeat("n1", 1000);
    // Range 2's report predates a split: its span differs from the meta descriptor's.
    HeartbeatRequest.Builder stale = hb.toBuilder();
    RangeStatsProto r2 = stale.getRanges(1);
    stale.setRanges(1, r2.toBuilder().setRange(r2.getRange().toBuilder().setEnd(ProtoValues.bytes(k(150)))));
    book.record("n1", StatsProtos.reports(stale.build().getRangesList()), 5); // as the heartbeat edge does

    SnapshotBuilder.Built b = SnapshotBuilder.build(new ProvisionalView(h.meta.view()), book, List.of(), List.of());

    assertThat(b.snapshot().ranges()).extracting(RangeStats::rangeId).containsExactly(1L, 2L);
    RangeStats one = b.snapshot().ranges().get(0);
    assertThat(one.bytes()).isEqualTo(500);
    assertThat(one.readQps()).isEqualTo(12.5);
    assertThat(one.leaderNodeId()).isEqualTo("n1");
    assertThat(one.sampledKeys()).hasSize(1); // the non-positive weight is dropped
    assertThat(b.unmeasured()).containsExactly(2L);
    assertThat(b.snapshot().ranges().get(1).bytes()).isZero();
    assertThat(b.snapshot().nodes()).hasSize(3);
  }
}
