package dev.rangekv.meta.state;

import static dev.rangekv.meta.state.MetaStateTest.bootstrap;
import static dev.rangekv.meta.state.MetaStateTest.range;
import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetaStateSpanTest {
  private final MetaState s = MetaState.empty().apply(bootstrap(1,
      range(1, "", "d", 1), range(2, "d", "h", 1), range(3, "h", "p", 1), range(4, "p", null, 1)));

  static List<Long> ids(List<RangeDescriptorProto> ranges) {
    return ranges.stream().map(RangeDescriptorProto::getRangeId).toList();
  }

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Test
  void span_startsAtTheRangeHoldingTheKey_andStopsBeforeTheEnd() {
    assertThat(ids(wire(s).span(b("e"), b("p"), false, 10))).containsExactly(2L, 3L);
    assertThat(ids(wire(s).span(b("e"), b("pa"), false, 10))).containsExactly(2L, 3L, 4L);
    assertThat(ids(wire(s).span(b("h"), b("i"), false, 10))).containsExactly(3L);
  }

  @Test
  void span_toInfinity_isCutAtTheLimit_andTheDefaultAgrees() {
    assertThat(ids(wire(s).span(ByteString.EMPTY, ByteString.EMPTY, true, 3))).containsExactly(1L, 2L, 3L);
    assertThat(ids(wire(s).span(b("z"), ByteString.EMPTY, true, 3))).containsExactly(4L);
    assertThat(ids(wire(s).span(b("e"), ByteString.EMPTY, false, 0))).containsExactly(2L);
    MetaView plain = new MetaView() {
      @Override public long mapVersion() { return s.mapVersion(); }
      @Override public List<RangeDescriptor> ranges() { return s.ranges(); }
      @Override public boolean provisional(long rangeId) { return false; }
      @Override public RangeDescriptor lookup(Key key) { return s.lookup(key); }
      @Override public java.util.Optional<RangeDescriptor> range(long rangeId) { return s.range(rangeId); }
      @Override public Map<String, String> replicaAddresses(RangeDescriptor d) { return s.replicaAddresses(d); }
      @Override public MapDelta changesSince(long v) { return s.changesSince(v); }
      @Override public List<dev.rangekv.core.cluster.NodeInfo> nodes() { return s.nodes(); }
      @Override public List<dev.rangekv.core.cluster.Event> events(long a, int l, long r) { return List.of(); }
    };
    for (String key : List.of("", "c", "d", "g", "x")) {
      for (int limit = 0; limit < 5; limit++) {
        assertThat(wire(plain).span(b(key), b("q"), false, limit)).isEqualTo(wire(s).span(b(key), b("q"), false, limit));
        assertThat(wire(plain).span(b(key), ByteString.EMPTY, true, limit))
            .isEqualTo(wire(s).span(b(key), ByteString.EMPTY, true, limit));
      }
    }
  }
}
