package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.format.Table;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.NodeRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;

/** {@code rangekv nodes}: the nodes the meta range knows, live or not, with their last heartbeat's summary. */
@Command(name = "nodes", mixinStandardHelpOptions = true,
    description = "List nodes: address, zone, live/dead, replicas, leaders, bytes, QPS, last heartbeat.")
public final class NodesCommand extends ClusterCommand {
  @Override
  protected void execute(List<String> addresses) {
    ListNodesResponse r = metaRead(addresses, s -> s.listNodes(ListNodesRequest.getDefaultInstance()));
    Set<String> live = Set.copyOf(r.getLiveNodeIdsList());
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (NodeRecord n : r.getNodesList()) {
        list.add(MetaViews.nodeJson(n, live.contains(n.getNodeId()), n.getNodeId().equals(r.getMetaLeaderNodeId())));
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("metaLeader", r.getMetaLeaderNodeId());
      m.put("metaVoters", r.getMetaVoterNodeIdsList());
      m.put("nodes", list);
      printJson(m);
      return;
    }
    long now = System.currentTimeMillis();
    Table t = new Table("NODE", "ADDRESS", "ZONE", "STATE", "REPLICAS", "LEADERS", "DORMANT", "SIZE", "QPS", "HEARTBEAT");
    for (NodeRecord n : r.getNodesList()) {
      String state = (live.contains(n.getNodeId()) ? "live" : "dead")
          + (n.getNodeId().equals(r.getMetaLeaderNodeId()) ? ",meta-leader"
              : r.getMetaVoterNodeIdsList().contains(n.getNodeId()) ? ",meta" : "");
      String beat = n.getLastHeartbeatMillis() == 0 ? "never"
          : Math.max(0, (now - n.getLastHeartbeatMillis()) / 1000) + "s ago";
      t.row(n.getNodeId(), n.getAddress(), n.getZone().isEmpty() ? "-" : n.getZone(), state, n.getReplicaCount(),
          n.getLeaderCount(), n.getDormantCount(), Table.bytes(n.getBytes()), MetaViews.qps(n.getQps()), beat);
    }
    t.print(out());
    out().println("-- " + r.getNodesCount() + " nodes, " + live.size() + " live, meta leader "
        + (r.getMetaLeaderNodeId().isEmpty() ? "unknown" : r.getMetaLeaderNodeId())
        + (r.getMetaVoterNodeIdsCount() == 0 ? "" : ", meta voters " + String.join(",", r.getMetaVoterNodeIdsList())));
  }
}
