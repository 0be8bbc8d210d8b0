package dev.rangekv.meta.state;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.InvalidRuleException;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.PlacementRules;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.proto.convert.EventProtos;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaRangeEntry;
import dev.rangekv.proto.meta.MetaSnapshot;
import dev.rangekv.proto.meta.Removal;
import dev.rangekv.proto.meta.PlacementChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The meta range's applied state: an immutable {@link MetaView} with a pure transition function
 * {@link #apply} (no I/O, no clock: time comes in {@code MetaCommand.at_millis}), so every replica
 * that applies the same log reaches the same state. Safe to share between threads.
 *
 * <p>Map rules: bootstrap installs a tiling map only while the map is empty; reported descriptors
 * (from {@code report} and {@code heartbeat.ranges}) are reconciled by generation (see {@link
 * RangeTable}); {@code map_version} grows by one per command that changed the map, and each entry
 * records the version that last changed it. Nodes: register and heartbeat stamp {@code
 * last_heartbeat_millis = at_millis}; a heartbeat from an unknown node registers it; remove_node forgets
 * one (the service checks it is dead and holds nothing). Events: seq
 * ascending from 1, bounded by {@link MetaLimits#maxEvents}. Placement rules: a versioned {@link
 * PlacementRules} set; a malformed rule is refused at apply like any malformed command. Range ids:
 * {@code allocate_range_ids} grants a block from the {@link RangeIds} allocator, above every id in the
 * map (the entry's reply names it, see {@code meta.ratis.MetaStateMachine}).
 */
public final class MetaState implements MetaView {
  private final MetaLimits limits;
  private final long mapVersion;
  private final RangeTable table;
  private final TreeMap<String, NodeInfo> nodes;
  private final EventLog events;
  private final PlacementRules placement;
  private final RangeIds rangeIds;

  private MetaState(MetaLimits limits, long mapVersion, RangeTable table, TreeMap<String, NodeInfo> nodes,
      EventLog events, PlacementRules placement, RangeIds rangeIds) {
    this.limits = limits;
    this.mapVersion = mapVersion;
    this.table = table;
    this.nodes = nodes;
    this.events = events;
    this.placement = placement;
    this.rangeIds = rangeIds;
  }

  /** A state with these map, nodes, events and placement, and this state's range-id allocator. */
  private MetaState with(long version, RangeTable t, TreeMap<String, NodeInfo> n, EventLog e, PlacementRules p) {
    return new MetaState(limits, version, t, n, e, p, rangeIds);
  }

  /** The state before the first command: no ranges, no nodes, no events, map version 0. */
  public static MetaState empty() {
    return empty(MetaLimits.defaults());
  }

  public static MetaState empty(MetaLimits limits) {
    return new MetaState(limits, 0, RangeTable.empty(limits.maxRemovals()), new TreeMap<>(),
        EventLog.empty(limits.maxEvents()), PlacementRules.EMPTY, RangeIds.initial());
  }

  /**
   * The state after {@code cmd}; this state when it changed nothing.
   *
   * @throws MalformedMetaCommandException when {@code cmd} is invalid (nothing is applied)
   */
  public MetaState apply(MetaCommand cmd) {
    long at = cmd.getAtMillis();
    return switch (cmd.getOpCase()) {
      case BOOTSTRAP -> {
        if (!table.isEmpty()) {
          yield this;
        }
        List<ReportedRange> ranges = RangeWire.reported(cmd.getBootstrap().getRangesList());
        RangeTable next = table.bootstrap(ranges, mapVersion + 1);
        TreeMap<String, NodeInfo> n = new TreeMap<>(nodes);
        cmd.getBootstrap().getNodesList().forEach(r -> register(n, NodeProtos.node(r), at));
        yield new MetaState(limits, mapVersion + 1, next, n, events, placement, seen(ranges));
      }
      case REGISTER_NODE -> {
        TreeMap<String, NodeInfo> n = new TreeMap<>(nodes);
        register(n, NodeProtos.node(cmd.getRegisterNode()), at);
        yield with(mapVersion, table, n, events, placement);
      }
      case HEARTBEAT -> {
        List<ReportedRange> ranges = RangeWire.reported(cmd.getHeartbeat().getRangesList());
        TreeMap<String, NodeInfo> n = new TreeMap<>(nodes);
        heartbeat(n, NodeProtos.node(cmd.getHeartbeat().getNode()), at);
        RangeTable next = reconcile(ranges);
        yield new MetaState(limits, next == table ? mapVersion : mapVersion + 1, next, n, events, placement,
            seen(ranges));
      }
      case REPORT -> {
        List<ReportedRange> ranges = RangeWire.reported(cmd.getReport().getRangesList());
        RangeTable next = reconcile(ranges);
        RangeIds ids = seen(ranges);
        yield next == table && ids.equals(rangeIds) ? this
            : new MetaState(limits, next == table ? mapVersion : mapVersion + 1, next, nodes, events, placement, ids);
      }
      case EVENTS -> {
        EventLog next = events.append(EventProtos.events(cmd.getEvents().getEventsList()), at);
        yield next == events ? this : with(mapVersion, table, nodes, next, placement);
      }
      case REMOVE_NODE -> {
        if (!nodes.containsKey(cmd.getRemoveNode().getNodeId())) {
          yield this;
        }
        TreeMap<String, NodeInfo> n = new TreeMap<>(nodes);
        n.remove(cmd.getRemoveNode().getNodeId());
        yield with(mapVersion, table, n, events, placement);
      }
      case PLACEMENT -> {
        PlacementRules next = placement(cmd.getPlacement());
        yield next == placement ? this : with(mapVersion, table, nodes, events, next);
      }
      case ALLOCATE_RANGE_IDS -> {
        RangeIds.Grant g = grant(cmd.getAllocateRangeIds().getCount());
        yield new MetaState(limits, mapVersion, table, nodes, events, placement, g.after());
      }
      case OP_NOT_SET -> throw new MalformedMetaCommandException("meta command without an operation");
    };
  }

  /**
   * The allocator above every id of {@code ranges}: a range the meta range did not grant (a bootstrapped
   * map, a cluster older than the allocator) never gets its id granted again.
   */
  private RangeIds seen(List<ReportedRange> ranges) {
    RangeIds ids = rangeIds;
    for (ReportedRange r : ranges) {
      ids = ids.seen(r.descriptor().rangeId());
    }
    return ids;
  }

  private RangeIds.Grant grant(int count) {
    try {
      return rangeIds.grant(count);
    } catch (IllegalArgumentException e) {
      throw new MalformedMetaCommandException("allocate_range_ids: " + e.getMessage());
    }
  }

  private PlacementRules placement(PlacementChange change) {
    try {
      return switch (change.getChangeCase()) {
        case SET -> placement.with(PlacementProtos.rule(change.getSet()));
        case REMOVE -> placement.without(ProtoValues.key(change.getRemove().getStart()),
            ProtoValues.end(change.getRemove().getEnd(), change.getRemove().getEndInfinite())).orElse(placement);
        case CHANGE_NOT_SET -> throw new MalformedMetaCommandException("placement change without a change");
      };
    } catch (InvalidRuleException e) {
      throw new MalformedMetaCommandException("invalid placement rule: " + e.getMessage());
    }
  }

  private RangeTable reconcile(List<ReportedRange> reported) {
    return table.report(reported, mapVersion + 1);
  }

  /**
   * Identity fields (client and Raft address, zone, labels, capacity) as sent; the HTTP address and the
   * heartbeat summary stay as known (none for a new node); stamped {@code at}.
   */
  private static void register(TreeMap<String, NodeInfo> nodes, NodeInfo r, long at) {
    checkNodeId(r);
    NodeInfo old = nodes.get(r.nodeId());
    String http = old == null ? "" : old.httpAddress();
    NodeInfo.Heartbeat summary = old == null ? NodeInfo.Heartbeat.at(at) : old.heartbeat().withAtMillis(at);
    nodes.put(r.nodeId(), new NodeInfo(r.nodeId(), new NodeInfo.Addresses(r.address(), r.raftAddress(), http),
        r.zone(), r.labels(), r.capacityBytes(), summary));
  }

  /**
   * Summary fields and HTTP address as sent; identity fields as sent unless left empty (then the known
   * ones stay); stamped {@code at}.
   */
  private static void heartbeat(TreeMap<String, NodeInfo> nodes, NodeInfo r, long at) {
    checkNodeId(r);
    NodeInfo old = nodes.get(r.nodeId());
    NodeInfo next = r.withHeartbeat(r.heartbeat().withAtMillis(at));
    if (old != null) {
      next = new NodeInfo(r.nodeId(), new NodeInfo.Addresses(
              r.address().isEmpty() ? old.address() : r.address(),
              r.raftAddress().isEmpty() ? old.raftAddress() : r.raftAddress(),
              r.httpAddress()),
          r.zone().isEmpty() ? old.zone() : r.zone(),
          r.labels().isEmpty() ? old.labels() : r.labels(),
          r.capacityBytes() == 0 ? old.capacityBytes() : r.capacityBytes(),
          next.heartbeat());
    }
    nodes.put(r.nodeId(), next);
  }

  private static void checkNodeId(NodeInfo r) {
    if (r.nodeId().isEmpty()) {
      throw new MalformedMetaCommandException("node record without node id");
    }
  }

  @Override
  public long mapVersion() {
    return mapVersion;
  }

  @Override
  public List<RangeDescriptor> ranges() {
    return table.entries().stream().map(RangeTable.Entry::range).toList();
  }

  @Override
  public boolean provisional(long rangeId) {
    return table.provisional(rangeId);
  }

  /**
   * @throws IllegalStateException when the map was not bootstrapped yet (it has no ranges)
   */
  @Override
  public RangeDescriptor lookup(Key key) {
    if (table.isEmpty()) {
      throw new IllegalStateException("the meta range map is empty: not bootstrapped yet");
    }
    return table.lookup(key).range();
  }

  @Override
  public List<RangeDescriptor> span(Key key, RangeEnd end, int limit) {
    if (table.isEmpty()) {
      throw new IllegalStateException("the meta range map is empty: not bootstrapped yet");
    }
    return table.span(key, end, limit);
  }

  @Override
  public Optional<RangeDescriptor> range(long rangeId) {
    return table.byId(rangeId).map(RangeTable.Entry::range);
  }

  /**
   * The addresses {@code d} was reported with when the map holds it; else (it was replaced since it was
   * read) the node table's addresses of its replicas.
   */
  @Override
  public Map<String, String> replicaAddresses(RangeDescriptor d) {
    return table.entryOf(d).map(RangeTable.Entry::addresses).orElseGet(() -> {
      Map<String, String> out = new java.util.HashMap<>();
      d.replicas().forEach(id -> node(id).ifPresent(n -> out.put(id, n.address())));
      return out;
    });
  }

  /** See {@link MapChanges#apply} for how a holder of the map at {@code sinceVersion} applies the answer. */
  @Override
  public MapDelta changesSince(long sinceVersion) {
    if (sinceVersion == 0 || sinceVersion > mapVersion || table.removalsTooOld(sinceVersion)) {
      return new MapDelta(mapVersion, true, ranges(), List.of());
    }
    List<RangeDescriptor> changed = new ArrayList<>();
    for (RangeTable.Entry e : table.entries()) {
      if (e.changedAt() > sinceVersion) {
        changed.add(e.range());
      }
    }
    return new MapDelta(mapVersion, false, changed, table.removedSince(sinceVersion));
  }

  @Override
  public List<NodeInfo> nodes() {
    return List.copyOf(nodes.values());
  }

  /** The record of {@code nodeId}, when registered. */
  public Optional<NodeInfo> node(String nodeId) {
    return Optional.ofNullable(nodes.get(nodeId));
  }

  @Override
  public List<Event> events(long afterSeq, int limit, long rangeId) {
    return events.after(afterSeq, limit, rangeId);
  }

  /** The seq the next appended event gets. */
  public long nextEventSeq() {
    return events.nextSeq();
  }

  @Override
  public PlacementRules placementRules() {
    return placement;
  }

  /** The range-id allocator: the next id it grants. */
  public RangeIds rangeIds() {
    return rangeIds;
  }

  public MetaLimits limits() {
    return limits;
  }

  /** The whole state, as the state machine's snapshot file stores it. */
  public MetaSnapshot toSnapshot() {
    MetaSnapshot.Builder b = MetaSnapshot.newBuilder()
        .setMapVersion(mapVersion)
        .addAllNodes(NodeProtos.protos(List.copyOf(nodes.values())))
        .addAllEvents(EventProtos.protos(events.all()))
        .setNextEventSeq(events.nextSeq())
        .addAllRemovals(table.removals().stream().map(r -> Removal.newBuilder().setRangeId(r.rangeId())
            .setVersion(r.version()).build()).toList())
        .setPlacementVersion(placement.version())
        .setNextRangeId(rangeIds.next());
    placement.rules().forEach(r -> b.addPlacementRules(PlacementProtos.proto(r)));
    for (RangeTable.Entry e : table.entries()) {
      b.addRanges(MetaRangeEntry.newBuilder()
          .setRange(RangeWire.proto(e.range(), e.addresses()))
          .setProvisional(e.provisional())
          .setChangedAtVersion(e.changedAt()));
    }
    return b.build();
  }

  public static MetaState fromSnapshot(MetaSnapshot snapshot) {
    return fromSnapshot(snapshot, MetaLimits.defaults());
  }

  /**
   * @throws MalformedMetaCommandException when the snapshot's ranges do not tile
   */
  public static MetaState fromSnapshot(MetaSnapshot snapshot, MetaLimits limits) {
    TreeMap<String, NodeInfo> nodes = new TreeMap<>();
    snapshot.getNodesList().forEach(n -> nodes.put(n.getNodeId(), NodeProtos.node(n)));
    List<RangeTable.Entry> entries = new ArrayList<>(snapshot.getRangesCount());
    for (MetaRangeEntry e : snapshot.getRangesList()) {
      ReportedRange r = RangeWire.reported(e.getRange());
      entries.add(new RangeTable.Entry(r.descriptor(), r.addresses(), e.getProvisional(), e.getChangedAtVersion()));
    }
    List<RangeTable.Removal> removals = snapshot.getRemovalsList().stream()
        .map(r -> new RangeTable.Removal(r.getRangeId(), r.getVersion())).toList();
    RangeTable table = RangeTable.restore(entries, removals, limits.maxRemovals());
    return new MetaState(limits, snapshot.getMapVersion(), table, nodes,
        new EventLog(EventProtos.events(snapshot.getEventsList()), snapshot.getNextEventSeq(), limits.maxEvents()),
        PlacementProtos.rules(snapshot.getPlacementVersion(), snapshot.getPlacementRulesList()),
        snapshot.getNextRangeId() == 0 ? RangeIds.initial().seen(table.highestRangeId())
            : new RangeIds(snapshot.getNextRangeId()));
  }

  @Override
  public String toString() {
    return "MetaState[mapVersion=" + mapVersion + ", ranges=" + table.entries().size() + ", nodes=" + nodes.size()
        + ", nextEventSeq=" + events.nextSeq() + ", nextRangeId=" + rangeIds.next() + "]";
  }
}
