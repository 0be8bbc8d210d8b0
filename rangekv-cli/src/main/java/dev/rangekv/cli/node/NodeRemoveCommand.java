package dev.rangekv.cli.node;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RemoveNodeRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code rangekv node remove NODE}: the cluster forgets a dead node for good. The meta range refuses while
 * the node is live, a meta voter, or still listed by a range (the controller repairs a dead node's
 * replicas onto live nodes after {@code node.dead-timeout}); the refusal says which.
 */
@Command(name = "remove", mixinStandardHelpOptions = true,
    description = "Forget a dead node for good (after the controller has repaired its replicas elsewhere).")
public final class NodeRemoveCommand extends ClusterCommand {
  @Parameters(index = "0", paramLabel = "NODE", description = "the node id to remove")
  String nodeId;

  @Override
  protected void execute(List<String> addresses) {
    NodeRecord removed = metaChange(addresses, s -> s.removeNode(RemoveNodeRequest.newBuilder().setNodeId(nodeId).build()))
        .getRemoved();
    if (json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("removed", removed.getNodeId());
      m.put("address", removed.getAddress());
      printJson(m);
      return;
    }
    out().println("removed node " + removed.getNodeId() + " (" + removed.getAddress() + ") from the cluster");
  }
}
