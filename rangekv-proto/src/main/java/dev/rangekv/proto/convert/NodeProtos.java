package dev.rangekv.proto.convert;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.proto.NodeRecord;
import java.util.List;

/** Node records between core's {@link NodeInfo} and their protobuf form; lossless both ways. Stateless. */
public final class NodeProtos {
  private NodeProtos() {}

  public static NodeInfo node(NodeRecord p) {
    return new NodeInfo(p.getNodeId(), new NodeInfo.Addresses(p.getAddress(), p.getRaftAddress(), p.getHttpAddress()),
        p.getZone(), p.getLabelsMap(), p.getCapacityBytes(), new NodeInfo.Heartbeat(p.getLastHeartbeatMillis(),
            p.getReplicaCount(), p.getLeaderCount(), p.getDormantCount(), p.getBytes(), p.getQps()));
  }

  public static NodeRecord proto(NodeInfo n) {
    NodeInfo.Heartbeat h = n.heartbeat();
    return NodeRecord.newBuilder().setNodeId(n.nodeId()).setAddress(n.address()).setRaftAddress(n.raftAddress())
        .setHttpAddress(n.httpAddress()).setZone(n.zone()).putAllLabels(n.labels()).setCapacityBytes(n.capacityBytes())
        .setLastHeartbeatMillis(h.atMillis()).setReplicaCount(h.replicaCount()).setLeaderCount(h.leaderCount())
        .setDormantCount(h.dormantCount()).setBytes(h.bytes()).setQps(h.qps()).build();
  }

  public static List<NodeInfo> nodes(List<NodeRecord> ps) {
    return ps.stream().map(NodeProtos::node).toList();
  }

  public static List<NodeRecord> protos(List<NodeInfo> ns) {
    return ns.stream().map(NodeProtos::proto).toList();
  }
}
