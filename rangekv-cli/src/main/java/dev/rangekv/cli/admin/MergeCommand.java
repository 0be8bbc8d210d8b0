package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.AdminMergeRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rangekv merge --range ID}: merges a range with its right neighbour (co-located first if needed). */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = "Merge a range with its right neighbour (the controller co-locates their replicas first).")
public final class MergeCommand extends ClusterCommand {
  @Option(names = "--range", required = true, paramLabel = "ID", converter = RangeIdText.class,
      description = "the left range of the pair")
  long range;

  @Override
  protected void execute(List<String> addresses) {
    RangeDescriptorProto merged =
        metaChange(addresses, s -> s.merge(AdminMergeRequest.newBuilder().setLeftRangeId(range).build())).getMerged();
    if (json()) {
      printJson(MetaViews.descriptorJson(merged, keys()));
      return;
    }
    out().println("merged into r" + merged.getRangeId() + " " + MetaViews.span(merged, keys()) + " generation "
        + merged.getGeneration() + " on " + MetaViews.replicas(merged));
  }
}
