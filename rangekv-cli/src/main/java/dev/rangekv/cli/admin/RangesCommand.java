package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.ListRangeStatsResponse;
import dev.rangekv.proto.RangeStatsProto;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code rangekv ranges}: the range map from the meta range, with each range's latest stats. */
@Command(name = "ranges", mixinStandardHelpOptions = true,
    description = "List ranges: id, span, generation, replicas, leader, size, keys, QPS, state (awake or dormant;"
        + " from the meta range);"
        + " ranges out of placement-rule conformance are marked with '!'.")
public final class RangesCommand extends ClusterCommand {
  @Override
  protected void execute(List<String> addresses) {
    ListRangeStatsResponse r = metaRead(addresses, s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance()));
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (RangeStatsProto s : r.getRangesList()) {
        Map<String, Object> range = new LinkedHashMap<>(MetaViews.rangeJson(s, keys()));
        range.put("placementViolations", s.getPlacementViolations()); // empty: conforms, or no rule
        list.add(range);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("mapVersion", r.getMapVersion());
      m.put("ranges", list);
      printJson(m);
      return;
    }
    MetaViews.rangesTable(r.getRangesList(), keys()).print(out());
    long outOf = 0;
    long dormant = r.getRangesList().stream().filter(RangeStatsProto::getDormant).count();
    for (RangeStatsProto s : r.getRangesList()) {
      if (!s.getPlacementViolations().isEmpty()) {
        out().println("! r" + s.getRange().getRangeId() + " out of placement conformance: " + s.getPlacementViolations());
        outOf++;
      }
    }
    out().println("-- " + r.getRangesCount() + " ranges, map version " + r.getMapVersion()
        + (dormant > 0 ? ", " + dormant + " dormant" : "")
        + (outOf > 0 ? ", " + outOf + " out of placement conformance (see 'rangekv why')" : ""));
  }
}
