package dev.rangekv.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.LabelConstraint;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.EventProtos;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.meta.AppendEvents;
import dev.rangekv.proto.meta.Bootstrap;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.NodeHeartbeat;
import dev.rangekv.proto.meta.PlacementChange;
import dev.rangekv.proto.meta.RemoveNode;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each change encodes as the very entry its proposers built by hand before changes were typed, so logs
 * and snapshots written then replay the same, and decodes back through {@link MetaState#apply}.
 */
class MetaCommandsTest {
  static final NodeRecord N2 = NodeRecord.newBuilder().setNodeId("n2").setAddress("h:2").setRaftAddress("h:12")
      .setZone("z1").putLabels("disk", "ssd").setCapacityBytes(1 << 20).setLastHeartbeatMillis(30)
      .setReplicaCount(2).setLeaderCount(1).setBytes(100).setQps(2.5).build();
  static final RangeDescriptorProto R1 = RangeDescriptorProto.newBuilder().setRangeId(1)
      .setStart(ByteString.EMPTY).setEndInfinite(true).setGeneration(4)
      .addReplicas(ReplicaProto.newBuilder().setNodeId("n2").setAddress("h:2")).build();

  static MetaCommand at(long atMillis, MetaCommand.Builder b) {
    return b.setAtMillis(atMillis).build();
  }

  @Test
  void everyChange_encodesAsTheEntryItsProposerBuiltBefore() {
    NodeInfo n2 = NodeProtos.node(N2);
    List<ReportedRange> r1 = List.of(RangeWire.reported(R1));
    Event joined = Event.of("node-joined", List.of(), "node registered", "node n2 at h:2", 30);
    PlacementRule rule = new PlacementRule(Key.utf8("a"), RangeEnd.at(Key.utf8("m")), 3,
        List.of(LabelConstraint.parse("+disk=ssd")), List.of(), List.of(), 0);

    assertThat(MetaCommands.encode(new MetaChange.Bootstrap(r1, List.of(n2), 10)))
        .isEqualTo(at(10, MetaCommand.newBuilder().setBootstrap(Bootstrap.newBuilder().addRanges(R1).addNodes(N2))));
    assertThat(MetaCommands.encode(new MetaChange.RegisterNode(n2, 30)))
        .isEqualTo(at(30, MetaCommand.newBuilder().setRegisterNode(N2)));
    assertThat(MetaCommands.encode(new MetaChange.Heartbeat(n2, r1, 30)))
        .isEqualTo(at(30, MetaCommand.newBuilder().setHeartbeat(NodeHeartbeat.newBuilder().setNode(N2).addRanges(R1))));
    assertThat(MetaCommands.encode(new MetaChange.Report(r1, 40)))
        .isEqualTo(at(40, MetaCommand.newBuilder().setReport(ReportDescriptorsRequest.newBuilder().addRanges(R1))));
    assertThat(MetaCommands.encode(new MetaChange.AppendEvents(List.of(joined), 50)))
        .isEqualTo(at(50, MetaCommand.newBuilder().setEvents(AppendEvents.newBuilder()
            .addEvents(EventProtos.proto(joined)))));
    assertThat(MetaCommands.encode(new MetaChange.RemoveNode("n2", 60)))
        .isEqualTo(at(60, MetaCommand.newBuilder().setRemoveNode(RemoveNode.newBuilder().setNodeId("n2"))));
    assertThat(MetaCommands.encode(new MetaChange.Placement(rule, false, 70)))
        .isEqualTo(at(70, MetaCommand.newBuilder().setPlacement(PlacementChange.newBuilder()
            .setSet(PlacementProtos.proto(rule)))));
    assertThat(MetaCommands.encode(new MetaChange.Placement(rule, true, 80)))
        .isEqualTo(at(80, MetaCommand.newBuilder().setPlacement(PlacementChange.newBuilder()
            .setRemove(PlacementProtos.proto(rule)))));
  }

  @Test
  void encodedChanges_decodeBackThroughTheState() {
    NodeInfo n2 = NodeProtos.node(N2);
    List<ReportedRange> r1 = List.of(RangeWire.reported(R1));
    PlacementRule rule = new PlacementRule(Key.utf8("a"), RangeEnd.at(Key.utf8("m")), 3, List.of(), List.of(),
        List.of(), 0);
    MetaState s = MetaState.empty().apply(MetaCommands.encode(new MetaChange.Bootstrap(r1, List.of(n2), 10)));
    assertThat(s.ranges()).extracting(d -> d.rangeId()).containsExactly(1L);
    assertThat(s.node("n2").orElseThrow().labels()).containsEntry("disk", "ssd");

    s = s.apply(MetaCommands.encode(new MetaChange.Placement(rule, false, 20)));
    assertThat(s.placementRules().rules()).hasSize(1);
    s = s.apply(MetaCommands.encode(new MetaChange.Placement(rule, true, 30)));
    assertThat(s.placementRules().rules()).isEmpty();
    s = s.apply(MetaCommands.encode(new MetaChange.RemoveNode("n2", 40)));
    assertThat(s.node("n2")).isEmpty();
  }
}
