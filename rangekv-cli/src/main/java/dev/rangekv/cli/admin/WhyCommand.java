package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.proto.WhyResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rangekv why RANGE}: the controller's latest evaluation of each policy on one range, and its history. */
@Command(name = "why", mixinStandardHelpOptions = true,
    description = "Explain one range: the controller's latest decisions on it (taken or declined), with numbers.")
public final class WhyCommand extends ClusterCommand {
  @Parameters(index = "0", paramLabel = "RANGE_ID", converter = RangeIdText.class)
  long rangeId;

  @Override
  protected void execute(List<String> addresses) {
    WhyResponse r = metaRead(addresses, s -> s.why(WhyRequest.newBuilder().setRangeId(rangeId).build()));
    if (json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("range", MetaViews.rangeJson(r.getRange(), keys()));
      m.put("decisions", events(r.getDecisionsList()));
      m.put("events", events(r.getEventsList()));
      printJson(m);
      return;
    }
    MetaViews.rangesTable(List.of(r.getRange()), keys()).print(out());
    out().println();
    out().println("latest decisions:");
    lines(r.getDecisionsList());
    out().println("events:");
    lines(r.getEventsList());
  }

  private void lines(List<EventProto> events) {
    if (events.isEmpty()) {
      out().println("  (none)");
    }
    for (EventProto e : events) {
      out().println("  " + MetaViews.eventLine(e));
    }
  }

  private static List<Object> events(List<EventProto> events) {
    List<Object> list = new ArrayList<>();
    for (EventProto e : events) {
      list.add(MetaViews.eventJson(e));
    }
    return list;
  }
}
