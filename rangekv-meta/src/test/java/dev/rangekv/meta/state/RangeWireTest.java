package dev.rangekv.meta.state;

import static dev.rangekv.meta.state.MetaStateTest.bootstrap;
import static dev.rangekv.meta.state.MetaStateTest.range;
import static dev.rangekv.meta.state.MetaStateTest.report;
import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import java.util.List;
import org.junit.jupiter.api.Test;

class RangeWireTest {
  static RangeDescriptorProto on(RangeDescriptorProto d, String... nodeAndAddress) {
    RangeDescriptorProto.Builder b = d.toBuilder();
    for (int i = 0; i < nodeAndAddress.length; i += 2) {
      b.addReplicas(ReplicaProto.newBuilder().setNodeId(nodeAndAddress[i]).setAddress(nodeAndAddress[i + 1]));
    }
    return b.build();
  }

  @Test
  void aReportedDescriptor_isAnsweredAsReported_evenWhereTheNodeTableDisagrees() {
    // n1 is registered at h:1 (the bootstrap), reported here at old:1; n9 is not registered at all
    RangeDescriptorProto left = on(range(1, "", "m", 2), "n1", "old:1", "n9", "h:9");
    RangeDescriptorProto right = on(range(2, "m", null, 2), "n1", "old:1", "n2", "");
    MetaState s = MetaState.empty().apply(bootstrap(1, range(1, "", null, 1))).apply(report(2, left, right));
    assertThat(wire(s).ranges()).containsExactly(left, right);
    assertThat(wire(s).ranges().get(0).toByteString()).isEqualTo(left.toByteString());
    assertThat(wire(MetaState.fromSnapshot(s.toSnapshot())).ranges()).containsExactly(left, right);
  }

  @Test
  void aDescriptorNoLongerInTheMap_takesItsAddressesFromTheNodeTable() {
    MetaState s = MetaState.empty().apply(bootstrap(1, on(range(1, "", null, 1), "n1", "old:1")));
    RangeDescriptor before = s.range(1).orElseThrow();
    MetaState after = s.apply(report(2, on(range(1, "", null, 2), "n1", "new:1")));
    assertThat(after.replicaAddresses(before)).containsEntry("n1", "h:1");
    assertThat(after.replicaAddresses(after.range(1).orElseThrow())).containsEntry("n1", "new:1");
  }

  @Test
  void anEmptySpan_isMalformed() {
    assertThatThrownBy(() -> RangeWire.reported(range(3, "m", "m", 1)))
        .isInstanceOf(MalformedMetaCommandException.class).hasMessageContaining("r3");
    assertThat(RangeWire.reported(List.of(range(3, "m", null, 1)))).hasSize(1);
  }
}
