package dev.rangekv.meta.state;

import static dev.rangekv.meta.state.WireView.wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.meta.AppendEvents;
import dev.rangekv.proto.meta.Bootstrap;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.NodeHeartbeat;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetaStateTest {
  static RangeDescriptorProto range(long id, String start, String end, long gen) {
    RangeDescriptorProto.Builder b = RangeDescriptorProto.newBuilder()
        .setRangeId(id).setStart(ByteString.copyFromUtf8(start)).setGeneration(gen);
    return end == null ? b.setEndInfinite(true).build() : b.setEnd(ByteString.copyFromUtf8(end)).build();
  }

  static MetaCommand bootstrap(long at, RangeDescriptorProto... ranges) {
    return MetaCommand.newBuilder().setAtMillis(at)
        .setBootstrap(Bootstrap.newBuilder().addAllRanges(List.of(ranges))
            .addNodes(NodeRecord.newBuilder().setNodeId("n1").setAddress("h:1")))
        .build();
  }

  static MetaCommand report(long at, RangeDescriptorProto... ranges) {
    return MetaCommand.newBuilder().setAtMillis(at)
        .setReport(ReportDescriptorsRequest.newBuilder().addAllRanges(List.of(ranges))).build();
  }

  static MetaCommand events(long at, EventProto... events) {
    return MetaCommand.newBuilder().setAtMillis(at).setEvents(AppendEvents.newBuilder().addAllEvents(List.of(events)))
        .build();
  }

  private final MetaState boot = MetaState.empty().apply(bootstrap(5, range(1, "", null, 1)));

  @Test
  void bootstrap_installsTheMap_onlyWhileEmpty() {
    assertThat(boot.mapVersion()).isEqualTo(1);
    assertThat(wire(boot).ranges()).containsExactly(range(1, "", null, 1));
    assertThat(boot.nodes()).extracting(NodeInfo::lastHeartbeatMillis).containsExactly(5L);
    assertThat(boot.apply(bootstrap(6, range(9, "", null, 7)))).isSameAs(boot);
  }

  @Test
  void malformedCommands_areRejectedWithoutChange() {
    assertThatThrownBy(() -> MetaState.empty().apply(bootstrap(1, range(1, "", "m", 1))))
        .isInstanceOf(MalformedMetaCommandException.class);
    assertThatThrownBy(() -> boot.apply(report(1, range(2, "m", "a", 3))))
        .isInstanceOf(MalformedMetaCommandException.class);
    assertThatThrownBy(() -> boot.apply(MetaCommand.getDefaultInstance()))
        .isInstanceOf(MalformedMetaCommandException.class);
    assertThatThrownBy(() -> boot.apply(MetaCommand.newBuilder().setRegisterNode(NodeRecord.getDefaultInstance()).build()))
        .isInstanceOf(MalformedMetaCommandException.class);
  }

  @Test
  void reportsBeforeBootstrap_areIgnored_butTheHeartbeatRegistersItsNode() {
    MetaState s = MetaState.empty().apply(MetaCommand.newBuilder().setAtMillis(9)
        .setHeartbeat(NodeHeartbeat.newBuilder().setNode(NodeRecord.newBuilder().setNodeId("n2").setReplicaCount(3))
            .addRanges(range(1, "", null, 4)))
        .build());
    assertThat(s.ranges()).isEmpty();
    assertThat(s.mapVersion()).isZero();
    assertThat(s.node("n2").orElseThrow().heartbeat().replicaCount()).isEqualTo(3);
    assertThat(s.node("n2").orElseThrow().lastHeartbeatMillis()).isEqualTo(9);
  }

  @Test
  void splitRightHalfFirst_leavesAProvisionalLeftRemnant_untilTheLeftHalfArrives() {
    MetaState s = boot.apply(report(10, range(2, "m", null, 2)));
    assertThat(wire(s).ranges()).containsExactly(range(1, "", "m", 1), range(2, "m", null, 2));
    assertThat(s.provisional(1)).isTrue();
    assertThat(s.provisional(2)).isFalse();
    assertThat(wire(s).lookup(ByteString.copyFromUtf8("a")).getRangeId()).isEqualTo(1);

    MetaState healed = s.apply(report(11, range(1, "", "m", 2)));
    assertThat(healed.provisional(1)).isFalse();
    assertThat(healed.mapVersion()).isEqualTo(3);
    assertThat(healed.apply(report(12, range(1, "", "m", 2), range(1, "", null, 1)))).isSameAs(healed);
  }

  @Test
  void aMerge_removesTheRightId_andChangesSinceReportsIt() {
    MetaState split = boot.apply(report(10, range(1, "", "m", 2), range(2, "m", null, 2)));
    MetaState merged = split.apply(report(11, range(1, "", null, 3)));
    GetMapResponse changes = wire(merged).changesSince(split.mapVersion());
    assertThat(changes.getFull()).isFalse();
    assertThat(changes.getRangesList()).containsExactly(range(1, "", null, 3));
    assertThat(changes.getRemovedRangeIdsList()).containsExactly(2L);
    assertThat(wire(merged).changesSince(merged.mapVersion()).getRangesList()).isEmpty();
    assertThat(wire(merged).changesSince(0).getFull()).isTrue();
    assertThat(wire(merged).changesSince(99).getFull()).isTrue();
    assertThat(merged.range(2)).isEmpty();
  }

  @Test
  void changesSince_isFull_whenTheRemovalsKeptAreTooRecent() {
    MetaState s = MetaState.empty(new MetaLimits(10, 2)).apply(bootstrap(1, range(1, "", null, 1)));
    s = s.apply(report(2, range(1, "", "c", 2), range(2, "c", "m", 2), range(3, "m", null, 2)));
    long v = s.mapVersion();
    s = s.apply(report(3, range(1, "", "m", 3)));
    s = s.apply(report(4, range(1, "", null, 4)));
    assertThat(wire(s).changesSince(v).getFull()).isTrue();
    assertThat(wire(s).changesSince(v + 1).getFull()).isFalse();
    assertThat(wire(s).changesSince(v + 1).getRemovedRangeIdsList()).containsExactly(3L);
  }

  @Test
  void registerThenHeartbeat_updateTheRecord() {
    MetaState s = boot.apply(MetaCommand.newBuilder().setAtMillis(20)
        .setRegisterNode(NodeRecord.newBuilder().setNodeId("n2").setAddress("h:2").setZone("z1").setCapacityBytes(100))
        .build());
    s = s.apply(MetaCommand.newBuilder().setAtMillis(30).setHeartbeat(NodeHeartbeat.newBuilder()
        .setNode(NodeRecord.newBuilder().setNodeId("n2").setLeaderCount(2).setBytes(77).setQps(1.5))).build());
    NodeRecord n2 = NodeProtos.proto(s.node("n2").orElseThrow()); // as ListNodes answers it
    assertThat(n2.getAddress()).isEqualTo("h:2");
    assertThat(n2.getZone()).isEqualTo("z1");
    assertThat(n2.getCapacityBytes()).isEqualTo(100);
    assertThat(n2.getLeaderCount()).isEqualTo(2);
    assertThat(n2.getBytes()).isEqualTo(77);
    assertThat(n2.getLastHeartbeatMillis()).isEqualTo(30);
    assertThat(s.nodes()).extracting(NodeInfo::nodeId).containsExactly("n1", "n2");
    assertThat(s.mapVersion()).isEqualTo(boot.mapVersion());
  }

  @Test
  void events_getAscendingSeqs_areBounded_andFilterByRange() {
    MetaState s = MetaState.empty(new MetaLimits(3, 10));
    s = s.apply(events(100, EventProto.newBuilder().setKind("split").addRangeIds(1).addRangeIds(2).build(),
        EventProto.newBuilder().setKind("move").addRangeIds(2).setAtMillis(7).build()));
    s = s.apply(events(200, EventProto.newBuilder().setKind("merge").addRangeIds(1).build(),
        EventProto.newBuilder().setKind("failed").addRangeIds(3).build()));
    assertThat(s.events(0, 0, 0)).extracting(Event::seq).containsExactly(2L, 3L, 4L);
    assertThat(s.events(0, 0, 0)).extracting(Event::atMillis).containsExactly(7L, 200L, 200L);
    assertThat(s.events(2, 0, 0)).extracting(Event::seq).containsExactly(3L, 4L);
    assertThat(s.events(0, 1, 0)).extracting(Event::seq).containsExactly(2L);
    assertThat(s.events(0, 0, 1)).extracting(Event::kind).containsExactly("merge");
    assertThat(s.nextEventSeq()).isEqualTo(5);
    assertThat(MetaState.fromSnapshot(s.toSnapshot(), s.limits()).toSnapshot()).isEqualTo(s.toSnapshot());
  }
}
