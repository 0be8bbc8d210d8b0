package dev.rangekv.cli.admin;

import com.google.protobuf.ByteString;
import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.AdminSplitResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rangekv split --at KEY | --range ID}: a manual split through the controller (logged as an event). */
@Command(name = "split", mixinStandardHelpOptions = true,
    description = "Split a range: at KEY (in the range holding it, or in --range), or --range alone at its byte midpoint.")
public final class SplitCommand extends ClusterCommand {
  @Option(names = "--at", paramLabel = "KEY", description = "the split key (becomes the right range's start)")
  String at;

  @Option(names = "--range", paramLabel = "ID", converter = RangeIdText.class, description = "the range to split")
  Long range;

  @Override
  protected void execute(List<String> addresses) {
    if (at == null && range == null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "give --at KEY, --range ID, or both");
    }
    AdminSplitRequest.Builder req = AdminSplitRequest.newBuilder();
    if (range != null) {
      req.setRangeId(range);
    }
    if (at != null) {
      byte[] key = parseBytes(at, "--at");
      if (key.length == 0) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--at: the empty key starts the first range; it cannot split");
      }
      req.setSplitKey(ByteString.copyFrom(key));
    }
    AdminSplitResponse r = metaChange(addresses, s -> s.split(req.build()));
    if (json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("left", MetaViews.descriptorJson(r.getLeft(), keys()));
      m.put("right", MetaViews.descriptorJson(r.getRight(), keys()));
      printJson(m);
      return;
    }
    out().println("split r" + r.getLeft().getRangeId() + ": r" + r.getLeft().getRangeId() + " "
        + MetaViews.span(r.getLeft(), keys()) + " and r" + r.getRight().getRangeId() + " "
        + MetaViews.span(r.getRight(), keys()) + " on " + MetaViews.replicas(r.getRight()));
  }
}
