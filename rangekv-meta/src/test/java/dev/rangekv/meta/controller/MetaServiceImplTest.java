package dev.rangekv.meta.controller;

import static dev.rangekv.meta.controller.ControllerTest.k;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.ListRangeStatsResponse;
import dev.rangekv.proto.LookupRequest;
import dev.rangekv.proto.NotLeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.meta.HeartbeatRequest;
import io.grpc.Status;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MetaServiceImplTest {
  static Harness threeNodes() {
    FakeCluster c = new FakeCluster("n1", "n2", "n3");
    c.tile(List.of(k(100)), List.of("n1", "n2", "n3"));
    c.put(k(1), 1000);
    c.put(k(101), 3000);
    return new Harness(c).start();
  }

  @Test
  void nonLeader_answersNotLeader_withTheMetaLeadersIdAndAddress() {
    Harness h = threeNodes();
    h.meta.setLeader(false, "n2");

    Throwable t = Harness.callFailing(h.service::lookup, LookupRequest.newBuilder().setKey(ProtoValues.bytes(k(5))).build());

    assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    RangeKvError e = RangeKvErrors.fromThrowable(t).orElseThrow();
    assertThat(e.getNotLeader()).isEqualTo(NotLeader.newBuilder().setRangeId(0).setLeaderNodeId("n2")
        .setLeaderAddress(FakeCluster.record("n2").getAddress()).build());
    assertThat(e.getDefinitelyNotApplied()).isTrue();
    // Every RPC checks, including writes and admin calls.
    Throwable hb = Harness.callFailing(h.nodeService::heartbeat, h.cluster.heartbeat("n1", 1000));
    assertThat(RangeKvErrors.fromThrowable(hb).orElseThrow().hasNotLeader()).isTrue();
  }

  @Test
  void aHeartbeat_carriesIntoTheMetaRangeOnlyTheLedDescriptorsTheMapDoesNotHold() {
    Harness h = threeNodes();
    FakeCluster.FakeRange first = h.cluster.ranges().get(0);
    String leader = first.leader;
    h.cluster.addNode("n4");
    h.register("n4");

    Harness.call(h.nodeService::heartbeat, h.cluster.heartbeat(leader, 1000));
    assertThat(lastHeartbeat(h).getHeartbeat().getRangesList()).as("every led descriptor is in the map").isEmpty();

    h.cluster.addReplica(first.id, "n4"); // the next generation, not in the map yet
    Harness.call(h.nodeService::heartbeat, h.cluster.heartbeat(leader, 1000));
    assertThat(lastHeartbeat(h).getHeartbeat().getRangesList()).extracting(r -> r.getGeneration())
        .containsExactly(first.generation);
    assertThat(h.meta.view().range(first.id).orElseThrow().replicas()).contains("n4");

    Harness.call(h.nodeService::heartbeat, h.cluster.heartbeat(leader, 1000));
    assertThat(lastHeartbeat(h).getHeartbeat().getRangesList()).as("held now").isEmpty();
  }

  private static dev.rangekv.proto.meta.MetaCommand lastHeartbeat(Harness h) {
    List<dev.rangekv.proto.meta.MetaCommand> heartbeats = h.meta.proposed().stream()
        .filter(c -> c.getOpCase() == dev.rangekv.proto.meta.MetaCommand.OpCase.HEARTBEAT).toList();
    return heartbeats.get(heartbeats.size() - 1);
  }

  @Test
  void heartbeats_feedListNodesAndListRangeStats() {
    Harness h = threeNodes();
    h.heartbeatAll();
    h.clock.addAndGet(h.controller.config().deadNodeTimeoutMillis() + 1);
    h.cluster.kill("n3");
    h.heartbeatAll();

    ListNodesResponse nodes = Harness.call(h.service::listNodes, ListNodesRequest.getDefaultInstance());
    assertThat(nodes.getLiveNodeIdsList()).containsExactly("n1", "n2");
    assertThat(nodes.getMetaLeaderNodeId()).isEqualTo("n1");
    assertThat(nodes.getNodesList()).filteredOn(n -> n.getNodeId().equals("n1")).singleElement().satisfies(n -> {
      assertThat(n.getLeaderCount()).isEqualTo(2);
      assertThat(n.getReplicaCount()).isEqualTo(2);
      assertThat(n.getBytes()).isEqualTo(4000);
      assertThat(n.getLastHeartbeatMillis()).isEqualTo(h.clock.get());
    });

    ListRangeStatsResponse stats = Harness.call(h.service::listRangeStats, ListRangeStatsRequest.getDefaultInstance());
    assertThat(stats.getRangesList()).extracting(RangeStatsProto::getBytes).containsExactly(1000L, 3000L);
    assertThat(stats.getRangesList()).extracting(RangeStatsProto::getLeaderNodeId).containsExactly("n1", "n1");
    assertThat(Harness.call(h.service::listEvents, ListEventsRequest.getDefaultInstance()).getEventsList())
        .filteredOn(e -> e.getKind().equals("node-joined")).hasSize(3);
  }

  @Test
  void heartbeatWithoutNodeId_andWhyOfUnknownRange_areInvalidArgument() {
    Harness h = threeNodes();
    Throwable hb = Harness.callFailing(h.nodeService::heartbeat, HeartbeatRequest.getDefaultInstance());
    assertThat(Status.fromThrowable(hb).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    Throwable why = Harness.callFailing(h.service::why, WhyRequest.newBuilder().setRangeId(99).build());
    assertThat(Status.fromThrowable(why).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(RangeKvErrors.fromThrowable(why).orElseThrow().getMessage()).contains("unknown range 99");
  }
}
