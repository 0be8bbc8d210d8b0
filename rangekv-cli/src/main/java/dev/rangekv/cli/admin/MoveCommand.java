package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.AdminMoveRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rangekv move --range ID --from NODE --to NODE}: moves one replica (add, catch up, remove). */
@Command(name = "move", mixinStandardHelpOptions = true,
    description = "Move a range's replica from one node to another (add on the target, catch up, remove the old).")
public final class MoveCommand extends ClusterCommand {
  @Option(names = "--range", required = true, paramLabel = "ID", converter = RangeIdText.class)
  long range;

  @Option(names = "--from", required = true, paramLabel = "NODE", description = "node id holding a replica now")
  String from;

  @Option(names = "--to", required = true, paramLabel = "NODE", description = "node id to hold it instead")
  String to;

  @Override
  protected void execute(List<String> addresses) {
    RangeDescriptorProto moved = metaChange(addresses, s -> s.move(AdminMoveRequest.newBuilder()
        .setRangeId(range).setFromNodeId(from).setToNodeId(to).build())).getRange();
    if (json()) {
      printJson(MetaViews.descriptorJson(moved, keys()));
      return;
    }
    out().println("moved r" + moved.getRangeId() + " from " + from + " to " + to + ": replicas "
        + MetaViews.replicas(moved) + ", generation " + moved.getGeneration());
  }
}
