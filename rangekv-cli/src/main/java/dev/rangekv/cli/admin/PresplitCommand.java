package dev.rangekv.cli.admin;

import com.google.protobuf.ByteString;
import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rangekv presplit --at K1,K2 | --uniform N [--scatter]}: splits before load arrives (e.g. a
 * bucketed keyspace's bucket boundaries), optionally scattering the ranges over the live nodes.
 */
@Command(name = "presplit", mixinStandardHelpOptions = true,
    description = "Pre-split at keys, or into N ranges uniform over the 8-byte prefix space; --scatter spreads them.")
public final class PresplitCommand extends ClusterCommand {
  static final class Points {
    @Option(names = "--at", split = ",", paramLabel = "KEY", description = "split keys, comma-separated")
    List<String> at;

    @Option(names = "--uniform", paramLabel = "N", description = "this many ranges over the 8-byte prefix space")
    Integer uniform;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Points points;

  @Option(names = "--scatter", description = "spread the resulting ranges' replicas and leaders over live nodes")
  boolean scatter;

  @Override
  protected void execute(List<String> addresses) {
    PreSplitRequest.Builder req = PreSplitRequest.newBuilder().setScatter(scatter);
    if (points.uniform != null) {
      if (points.uniform < 2 || points.uniform > 4096) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--uniform must be in [2, 4096], got " + points.uniform);
      }
      req.setUniform(points.uniform);
    } else {
      for (String k : points.at) {
        byte[] key = parseBytes(k, "--at");
        if (key.length == 0) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--at: empty split key");
        }
        req.addSplitKeys(ByteString.copyFrom(key));
      }
    }
    List<RangeDescriptorProto> ranges = metaChange(addresses, s -> s.preSplit(req.build())).getRangesList();
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (RangeDescriptorProto d : ranges) {
        list.add(MetaViews.descriptorJson(d, keys()));
      }
      printJson(list);
      return;
    }
    for (RangeDescriptorProto d : ranges) {
      out().println("r" + d.getRangeId() + " " + MetaViews.span(d, keys()) + " on " + MetaViews.replicas(d));
    }
    out().println("-- " + ranges.size() + " ranges" + (scatter ? ", scattered" : ""));
  }
}
