package dev.rangekv.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.PlacementRuleProto;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.PlacementChange;
import org.junit.jupiter.api.Test;

class MetaStatePlacementTest {
  static PlacementRuleProto tenant(String prefix, String zone) {
    ByteString start = ByteString.copyFromUtf8(prefix);
    byte[] end = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    end[end.length - 1]++;
    return PlacementRuleProto.newBuilder().setStart(start).setEnd(ByteString.copyFrom(end)).setReplicas(3)
        .addZones(zone).addConstraints("-disk=hdd").build();
  }

  static MetaCommand set(PlacementRuleProto r) {
    return MetaCommand.newBuilder().setAtMillis(5).setPlacement(PlacementChange.newBuilder().setSet(r)).build();
  }

  @Test
  void rules_areVersioned_replacedBySpan_removed_andSurviveASnapshot() {
    MetaState s = MetaState.empty().apply(set(tenant("tenant/42/", "eu-1"))).apply(set(tenant("tenant/7/", "us-1")));
    assertThat(s.placementRules().version()).isEqualTo(2);
    s = s.apply(set(tenant("tenant/42/", "eu-2")));
    assertThat(s.placementRules().version()).isEqualTo(3);
    assertThat(s.placementRules().rules()).hasSize(2);
    assertThat(s.placementRules().rules().get(0).zones()).containsExactly("eu-2");
    assertThat(s.placementRules().rules().get(0).version()).isEqualTo(3);

    MetaState restored = MetaState.fromSnapshot(s.toSnapshot());
    assertThat(restored.placementRules()).isEqualTo(s.placementRules());

    MetaState removed = s.apply(MetaCommand.newBuilder().setPlacement(PlacementChange.newBuilder()
        .setRemove(tenant("tenant/7/", ""))).build());
    assertThat(removed.placementRules().version()).isEqualTo(4);
    assertThat(removed.placementRules().rules()).hasSize(1);
    MetaState again = removed.apply(MetaCommand.newBuilder().setPlacement(PlacementChange.newBuilder()
        .setRemove(tenant("tenant/7/", ""))).build());
    assertThat(again).isSameAs(removed);
  }

  @Test
  void aMalformedRule_isRefusedAtApply() {
    assertThatThrownBy(() -> MetaState.empty().apply(set(tenant("t/", "eu-1").toBuilder().setReplicas(2).build())))
        .isInstanceOf(MalformedMetaCommandException.class).hasMessageContaining("1, 3 or 5");
  }

  @Test
  void nodeLabels_areKeptFromRegistration_whenAHeartbeatSendsNone() {
    NodeRecord n = NodeRecord.newBuilder().setNodeId("n1").setAddress("a:1").setZone("eu-1")
        .putLabels("disk", "ssd").build();
    MetaState s = MetaState.empty().apply(MetaCommand.newBuilder().setAtMillis(1).setRegisterNode(n).build())
        .apply(MetaCommand.newBuilder().setAtMillis(2).setHeartbeat(dev.rangekv.proto.meta.NodeHeartbeat.newBuilder()
            .setNode(NodeRecord.newBuilder().setNodeId("n1"))).build());
    assertThat(s.node("n1").orElseThrow().labels()).containsEntry("disk", "ssd");
    assertThat(MetaState.fromSnapshot(s.toSnapshot()).node("n1").orElseThrow().labels())
        .containsEntry("disk", "ssd");
  }
}
