package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeIdBlock;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.meta.state.MapDelta;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaCommands;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.convert.EventProtos;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.meta.MetaCommand;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Test double of the meta range: a list-backed view that applies the proposed {@link MetaCommand}s
 * synchronously (register, heartbeat, report with highest-generation-wins, events). Thread-safe.
 */
final class InMemoryMetaGroup implements MetaGroup {
  private volatile View view = new View(0, List.of(), List.of(), List.of());
  private volatile boolean leader = true;
  private volatile String leaderNodeId = "n1";
  private final List<MetaCommand> proposed = new ArrayList<>();
  private volatile List<String> voters = List.of("n1", "n2", "n3");
  private RangeIds rangeIds = RangeIds.initial();

  /** The map as the nodes reported it ({@code wire}, with addresses), answered in core values. */
  record View(long mapVersion, List<RangeDescriptorProto> wire, List<NodeInfo> nodes, List<Event> events)
      implements MetaView {
    @Override
    public List<RangeDescriptor> ranges() {
      return wire.stream().map(ProtoValues::descriptor).toList();
    }

    @Override
    public boolean provisional(long rangeId) {
      return false;
    }

    @Override
    public RangeDescriptor lookup(Key k) {
      RangeDescriptor best = null;
      for (RangeDescriptor d : ranges()) {
        if (d.start().compareTo(k) <= 0) {
          best = d;
        }
      }
      return best;
    }

    @Override
    public Optional<RangeDescriptor> range(long rangeId) {
      return ranges().stream().filter(d -> d.rangeId() == rangeId).findFirst();
    }

    @Override
    public Map<String, String> replicaAddresses(RangeDescriptor d) {
      Map<String, String> out = new LinkedHashMap<>();
      wire.stream().filter(p -> ProtoValues.descriptor(p).equals(d)).findFirst()
          .ifPresent(p -> p.getReplicasList().forEach(r -> out.put(r.getNodeId(), r.getAddress())));
      return out;
    }

    @Override
    public MapDelta changesSince(long sinceVersion) {
      return new MapDelta(mapVersion, true, ranges(), List.of());
    }

    @Override
    public List<Event> events(long afterSeq, int limit, long rangeId) {
      List<Event> out = events.stream().filter(e -> e.seq() > afterSeq)
          .filter(e -> rangeId == 0 || e.concerns(rangeId)).toList();
      return limit == 0 || out.size() <= limit ? out : out.subList(0, limit);
    }
  }

  void setLeader(boolean leader, String leaderNodeId) {
    this.leader = leader;
    this.leaderNodeId = leaderNodeId;
  }

  @Override
  public List<String> voterIds() {
    return voters;
  }

  @Override
  public CompletableFuture<Void> changeVoters(List<NodeInfo> next) {
    if (!leader) {
      return CompletableFuture.failedFuture(new IllegalStateException("not the meta leader"));
    }
    voters = next.stream().map(NodeInfo::nodeId).sorted().toList();
    return CompletableFuture.completedFuture(null);
  }

  /** Sets the voters directly (a cluster bootstrapped on one node has one). */
  void setVoters(List<String> ids) {
    voters = List.copyOf(ids);
  }

  synchronized List<MetaCommand> proposed() {
    return List.copyOf(proposed);
  }

  /** Installs a map and nodes directly (bootstrap). */
  synchronized void bootstrap(List<RangeDescriptorProto> ranges, List<NodeRecord> nodes) {
    view = new View(1, sorted(ranges), NodeProtos.nodes(nodes), view.events());
  }

  /** The logged events of {@code kind}, in their wire form (as {@code ListEvents} answers them). */
  List<EventProto> events(String kind) {
    return view.events().stream().filter(e -> e.kind().equals(kind)).map(EventProtos::proto).toList();
  }

  @Override
  public MetaView view() {
    return view;
  }

  @Override
  public boolean isLeader() {
    return leader;
  }

  @Override
  public Optional<String> leaderNodeId() {
    return Optional.ofNullable(leaderNodeId);
  }

  @Override
  public synchronized CompletableFuture<MetaView> propose(MetaChange change) {
    MetaCommand c = MetaCommands.encode(change); // applied as the entry a Raft group would log
    if (!leader) {
      return CompletableFuture.failedFuture(new IllegalStateException("not the meta leader"));
    }
    proposed.add(c);
    View v = view;
    switch (c.getOpCase()) {
      case REGISTER_NODE -> v = withNode(v, c.getRegisterNode().toBuilder().setLastHeartbeatMillis(c.getAtMillis()).build());
      case HEARTBEAT -> {
        v = withNode(v, c.getHeartbeat().getNode().toBuilder().setLastHeartbeatMillis(c.getAtMillis()).build());
        v = report(v, c.getHeartbeat().getRangesList());
      }
      case REPORT -> v = report(v, c.getReport().getRangesList());
      case EVENTS -> {
        List<Event> events = new ArrayList<>(v.events());
        long seq = events.isEmpty() ? 0 : events.get(events.size() - 1).seq();
        for (EventProto e : c.getEvents().getEventsList()) {
          events.add(EventProtos.event(e).logged(++seq, c.getAtMillis()));
        }
        v = new View(v.mapVersion(), v.wire(), v.nodes(), events);
      }
      default -> throw new IllegalArgumentException("unsupported command " + c.getOpCase());
    }
    view = v;
    return CompletableFuture.completedFuture(v);
  }

  /** Grants ids with core's allocator, as the meta state does, above every id in the view. */
  @Override
  public synchronized CompletableFuture<RangeIdBlock> allocateRangeIds(int count) {
    if (!leader) {
      return CompletableFuture.failedFuture(new IllegalStateException("not the meta leader"));
    }
    long highest = view.wire().stream().mapToLong(RangeDescriptorProto::getRangeId).max().orElse(0);
    RangeIds.Grant g = rangeIds.seen(highest).grant(count);
    rangeIds = g.after();
    return CompletableFuture.completedFuture(g.block());
  }

  private static View withNode(View v, NodeRecord record) {
    NodeInfo n = NodeProtos.node(record);
    Map<String, NodeInfo> nodes = new LinkedHashMap<>();
    v.nodes().forEach(x -> nodes.put(x.nodeId(), x));
    nodes.put(n.nodeId(), n);
    return new View(v.mapVersion(), v.wire(), List.copyOf(nodes.values()), v.events());
  }

  /** Highest generation wins: a reported descriptor replaces every entry it overlaps, unless its own id is newer. */
  private static View report(View v, List<RangeDescriptorProto> reported) {
    List<RangeDescriptorProto> ranges = new ArrayList<>(v.wire());
    boolean changed = false;
    for (RangeDescriptorProto d : reported) {
      Optional<RangeDescriptorProto> same = ranges.stream().filter(x -> x.getRangeId() == d.getRangeId()).findFirst();
      if (same.isPresent() && same.get().getGeneration() >= d.getGeneration()) {
        continue;
      }
      RangeDescriptor nd = ProtoValues.descriptor(d);
      ranges.removeIf(x -> {
        RangeDescriptor od = ProtoValues.descriptor(x);
        return od.overlaps(nd.start(), nd.end());
      });
      ranges.add(d);
      changed = true;
    }
    return changed ? new View(v.mapVersion() + 1, sorted(ranges), v.nodes(), v.events()) : v;
  }

  private static List<RangeDescriptorProto> sorted(List<RangeDescriptorProto> ranges) {
    List<RangeDescriptorProto> out = new ArrayList<>(ranges);
    out.sort(Comparator.comparing(d -> ProtoValues.key(d.getStart())));
    return List.copyOf(out);
  }
}
