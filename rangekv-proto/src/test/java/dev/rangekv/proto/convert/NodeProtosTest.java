package dev.rangekv.proto.convert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.proto.NodeRecord;
import org.junit.jupiter.api.Test;

class NodeProtosTest {

  @Test
  void nodeRecord_roundTripsThroughCore_toTheSameBytes_labelsInTheirOrder() {
    NodeRecord p = NodeRecord.newBuilder().setNodeId("n2").setAddress("h:2").setRaftAddress("h:12")
        .setHttpAddress("h:22").setZone("eu-1").putLabels("region", "eu").putLabels("disk", "ssd")
        .setCapacityBytes(1 << 30).setLastHeartbeatMillis(77).setReplicaCount(5).setLeaderCount(2)
        .setDormantCount(1).setBytes(4096).setQps(12.5).build();
    NodeInfo n = NodeProtos.node(p);
    assertThat(n.heartbeat()).isEqualTo(new NodeInfo.Heartbeat(77, 5, 2, 1, 4096, 12.5));
    assertThat(n.labels().keySet()).containsExactly("region", "disk");
    assertThat(NodeProtos.proto(n).toByteString()).isEqualTo(p.toByteString());
  }

  @Test
  void emptyRecord_roundTripsToTheSameBytes() {
    NodeRecord empty = NodeRecord.getDefaultInstance();
    assertThat(NodeProtos.proto(NodeProtos.node(empty)).toByteString()).isEqualTo(empty.toByteString());
  }
}
