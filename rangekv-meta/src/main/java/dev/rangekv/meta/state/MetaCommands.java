package dev.rangekv.meta.state;

import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.EventProtos;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.meta.AppendEvents;
import dev.rangekv.proto.meta.Bootstrap;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.NodeHeartbeat;
import dev.rangekv.proto.meta.PlacementChange;
import dev.rangekv.proto.meta.RemoveNode;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import java.util.List;

/**
 * Encodes a {@link MetaChange} as the meta range's log entry ({@code MetaCommand}), so proposers above
 * the state (the controller, the service adapters) hand over core values and the wire form of an entry
 * is decided here and in {@link MetaState#apply}, its decoder. Entries keep the format they always had:
 * logs and snapshots written before replay unchanged. Stateless.
 */
public final class MetaCommands {
  private MetaCommands() {}

  /** The log entry of {@code change}. */
  public static MetaCommand encode(MetaChange change) {
    MetaCommand.Builder b = MetaCommand.newBuilder().setAtMillis(change.atMillis());
    if (change instanceof MetaChange.Bootstrap c) {
      b.setBootstrap(Bootstrap.newBuilder().addAllRanges(protos(c.ranges())).addAllNodes(NodeProtos.protos(c.nodes())));
    } else if (change instanceof MetaChange.RegisterNode c) {
      b.setRegisterNode(NodeProtos.proto(c.node()));
    } else if (change instanceof MetaChange.Heartbeat c) {
      b.setHeartbeat(NodeHeartbeat.newBuilder().setNode(NodeProtos.proto(c.node())).addAllRanges(protos(c.ledRanges())));
    } else if (change instanceof MetaChange.Report c) {
      b.setReport(ReportDescriptorsRequest.newBuilder().addAllRanges(protos(c.ranges())));
    } else if (change instanceof MetaChange.AppendEvents c) {
      b.setEvents(AppendEvents.newBuilder().addAllEvents(EventProtos.protos(c.events())));
    } else if (change instanceof MetaChange.RemoveNode c) {
      b.setRemoveNode(RemoveNode.newBuilder().setNodeId(c.nodeId()));
    } else if (change instanceof MetaChange.Placement c) {
      // a removal carries the whole rule, as it always did; the decoder reads only its span
      PlacementChange.Builder p = PlacementChange.newBuilder();
      b.setPlacement(c.remove() ? p.setRemove(PlacementProtos.proto(c.rule())) : p.setSet(PlacementProtos.proto(c.rule())));
    } else {
      throw new IllegalStateException("a meta change without an encoding: " + change.getClass().getName());
    }
    return b.build();
  }

  private static List<RangeDescriptorProto> protos(List<ReportedRange> ranges) {
    return ranges.stream().map(RangeWire::proto).toList();
  }
}
