package dev.rangekv.meta.state;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.PlacementRule;
import java.util.List;
import java.util.Objects;

/**
 * One write to the meta range as its proposers hand it to {@link MetaGroup#propose}: core values and the
 * meta leader's clock reading {@code atMillis} that stamps it. Proposers build no log entries; the entry
 * a change becomes is {@link MetaCommands#encode}'s to decide and {@link MetaState#apply}'s to read, so
 * the log and snapshot formats live in one place. Immutable.
 */
public sealed interface MetaChange {
  /** The meta leader's wall clock when the change was made. */
  long atMillis();

  /** Installs the first map of a new cluster and its first nodes (ignored by a meta range with a map). */
  record Bootstrap(List<ReportedRange> ranges, List<NodeInfo> nodes, long atMillis) implements MetaChange {
    public Bootstrap {
      ranges = List.copyOf(ranges);
      nodes = List.copyOf(nodes);
    }
  }

  /** Adds or updates a node's record; its last heartbeat becomes {@code atMillis}. */
  record RegisterNode(NodeInfo node, long atMillis) implements MetaChange {
    public RegisterNode {
      Objects.requireNonNull(node, "node");
    }
  }

  /** A node's heartbeat: its record with the summary, and the descriptors of the ranges it leads. */
  record Heartbeat(NodeInfo node, List<ReportedRange> ledRanges, long atMillis) implements MetaChange {
    public Heartbeat {
      Objects.requireNonNull(node, "node");
      ledRanges = List.copyOf(ledRanges);
    }
  }

  /** Descriptors as nodes answered them; the map reconciles them by generation. */
  record Report(List<ReportedRange> ranges, long atMillis) implements MetaChange {
    public Report {
      ranges = List.copyOf(ranges);
    }
  }

  /** Appends events to the log; {@code atMillis} stamps those without their own time. */
  record AppendEvents(List<Event> events, long atMillis) implements MetaChange {
    public AppendEvents {
      events = List.copyOf(events);
    }
  }

  /** Forgets a node's record for good. */
  record RemoveNode(String nodeId, long atMillis) implements MetaChange {
    public RemoveNode {
      Objects.requireNonNull(nodeId, "nodeId");
    }
  }

  /** Sets the placement rule of its span ({@code remove} false), or removes the rule of that span. */
  record Placement(PlacementRule rule, boolean remove, long atMillis) implements MetaChange {
    public Placement {
      Objects.requireNonNull(rule, "rule");
    }
  }
}
