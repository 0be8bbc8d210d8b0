package dev.rangekv.meta.state;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.proto.convert.EventProtos;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.meta.AppendEvents;
import dev.rangekv.proto.meta.Bootstrap;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import java.util.List;

/**
 * Encodes core values as meta range commands, so proposers above the state (the controller, the
 * service adapters) hand over core records and the wire form of a log entry is decided here and in
 * {@link MetaState#apply}, its decoder. Stateless.
 */
public final class MetaCommands {
  private MetaCommands() {}

  /** Appends {@code events} to the event log; {@code atMillis} stamps those without their own time. */
  public static MetaCommand appendEvents(List<Event> events, long atMillis) {
    return MetaCommand.newBuilder().setAtMillis(atMillis)
        .setEvents(AppendEvents.newBuilder().addAllEvents(EventProtos.protos(events))).build();
  }

  /** Installs the first map of a new cluster and its first nodes (ignored by a meta range with a map). */
  public static MetaCommand bootstrap(List<ReportedRange> ranges, List<NodeInfo> nodes, long atMillis) {
    return MetaCommand.newBuilder().setAtMillis(atMillis).setBootstrap(Bootstrap.newBuilder()
        .addAllRanges(ranges.stream().map(RangeWire::proto).toList()).addAllNodes(NodeProtos.protos(nodes))).build();
  }

  /** Reports descriptors as nodes answered them (the map reconciles them by generation). */
  public static MetaCommand report(List<ReportedRange> ranges, long atMillis) {
    return MetaCommand.newBuilder().setAtMillis(atMillis).setReport(ReportDescriptorsRequest.newBuilder()
        .addAllRanges(ranges.stream().map(RangeWire::proto).toList())).build();
  }
}
