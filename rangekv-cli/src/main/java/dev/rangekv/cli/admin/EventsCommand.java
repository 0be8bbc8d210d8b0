package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.ListEventsRequest;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rangekv events}: the controller's latest decisions (taken and declined) with reasons, oldest first. */
@Command(name = "events", mixinStandardHelpOptions = true,
    description = "Show the latest events (splits, merges, moves, declined decisions, alerts) with their reasons.")
public final class EventsCommand extends ClusterCommand {
  @Option(names = "--range", paramLabel = "ID", converter = RangeIdText.class, description = "only events about this range")
  Long range;

  @Option(names = "--limit", defaultValue = "20", description = "the latest N events (0 = all kept; default ${DEFAULT-VALUE})")
  int limit;

  @Override
  protected void execute(List<String> addresses) {
    if (limit < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be >= 0, got " + limit);
    }
    ListEventsRequest.Builder req = ListEventsRequest.newBuilder();
    if (range != null) {
      req.setRangeId(range);
    }
    List<EventProto> events = metaRead(addresses, s -> s.listEvents(req.build())).getEventsList();
    // ListEvents counts its limit from the oldest kept event; people want the newest N
    List<EventProto> latest = limit == 0 || events.size() <= limit ? events : events.subList(events.size() - limit, events.size());
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (EventProto e : latest) {
        list.add(MetaViews.eventJson(e));
      }
      printJson(list);
      return;
    }
    for (EventProto e : latest) {
      out().println(MetaViews.eventLine(e));
    }
    if (latest.isEmpty()) {
      out().println("-- no events" + (range == null ? "" : " about r" + range));
    }
  }
}
