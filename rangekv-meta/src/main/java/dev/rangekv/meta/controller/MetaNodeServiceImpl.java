package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.RangeReport;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.meta.state.MalformedMetaCommandException;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.meta.state.RangeWire;
import dev.rangekv.meta.state.ReportedRange;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.StatsProtos;
import dev.rangekv.proto.meta.AllocateRangeIdsRequest;
import dev.rangekv.proto.meta.AllocateRangeIdsResponse;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.HeartbeatResponse;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.meta.RegisterNodeRequest;
import dev.rangekv.proto.meta.RegisterNodeResponse;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import dev.rangekv.proto.meta.ReportDescriptorsResponse;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * What nodes tell the meta range, on every node (internal; the node role): registrations, heartbeats
 * (recorded in the {@link StatsBook} and proposed as the node's record and its leaders' descriptors),
 * descriptors a node saw, and range-id grants (a node splitting a range without a given child id). Only
 * the meta leader answers; entries are stamped with its clock.
 */
public final class MetaNodeServiceImpl extends MetaNodeServiceGrpc.MetaNodeServiceImplBase {
  private final MetaGroup meta;
  private final Controller controller;
  private final LongSupplier clock;
  private final MetaAnswers answers;

  public MetaNodeServiceImpl(MetaGroup meta, Controller controller, LongSupplier clock) {
    this.meta = meta;
    this.controller = controller;
    this.clock = clock;
    this.answers = new MetaAnswers(meta);
  }

  @Override
  public void reportDescriptors(ReportDescriptorsRequest req, StreamObserver<ReportDescriptorsResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    CompletableFuture<MetaView> applied;
    try {
      applied = meta.propose(new MetaChange.Report(RangeWire.reported(req.getRangesList()), clock.getAsLong()));
    } catch (MalformedMetaCommandException e) {
      applied = CompletableFuture.failedFuture(e); // answered as the meta range skipping the entry was
    }
    answers.reply(out, applied, v -> ReportDescriptorsResponse.newBuilder().setVersion(v.mapVersion()).build());
  }

  /** Grants a block of range ids; a lost answer is a gap (retrying is safe, see {@code MetaGroup}). */
  @Override
  public void allocateRangeIds(AllocateRangeIdsRequest req, StreamObserver<AllocateRangeIdsResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    if (req.getCount() < 1 || req.getCount() > RangeIds.MAX_BLOCK) {
      out.onError(MetaAnswers.invalid("count", "a grant holds 1 to " + RangeIds.MAX_BLOCK + " range ids, asked "
          + Integer.toUnsignedString(req.getCount())));
      return;
    }
    answers.reply(out, meta.allocateRangeIds(req.getCount()), b -> AllocateRangeIdsResponse.newBuilder()
        .setFirstRangeId(b.first()).setCount(b.count()).build());
  }

  @Override
  public void registerNode(RegisterNodeRequest req, StreamObserver<RegisterNodeResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    NodeRecord node = req.getNode();
    if (node.getNodeId().isEmpty() || node.getAddress().isEmpty()) {
      out.onError(MetaAnswers.invalid("node_id", "a node registers with a node id and a client address"));
      return;
    }
    boolean known = meta.view().nodes().stream().anyMatch(n -> n.nodeId().equals(node.getNodeId()));
    long now = clock.getAsLong();
    controller.stats().recordRegistration(node.getNodeId());
    NodeInfo registered = NodeProtos.node(node);
    CompletableFuture<MetaView> applied = meta.propose(new MetaChange.RegisterNode(
        registered.withHeartbeat(registered.heartbeat().withAtMillis(now)), now));
    if (!known) {
      applied = applied.thenCompose(v -> meta.propose(new MetaChange.AppendEvents(List.of(Event.of("node-joined",
          List.of(), "node registered", "node " + node.getNodeId() + " at " + node.getAddress()
              + (node.getZone().isEmpty() ? "" : " zone " + node.getZone()), now)), now)));
    }
    answers.reply(out, applied, v -> RegisterNodeResponse.newBuilder().addAllNodes(NodeProtos.protos(v.nodes())).build());
  }

  @Override
  public void heartbeat(HeartbeatRequest req, StreamObserver<HeartbeatResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    if (req.getNode().getNodeId().isEmpty()) {
      out.onError(MetaAnswers.invalid("node_id", "a heartbeat names its node id"));
      return;
    }
    List<RangeReport> reports = new ArrayList<>(req.getRangesCount());
    List<ReportedRange> led = new ArrayList<>();
    MetaView view = meta.view();
    try {
      // the controller's book and the meta range's entry take core values only
      for (RangeStatsProto line : req.getRangesList()) {
        RangeReport r = StatsProtos.report(line);
        reports.add(r);
        // the leader's descriptor is the authority (followers' may lag); one the map holds already goes no
        // further, as the entry's apply would skip it
        if (r.role() == RangeReport.Role.LEADER && !held(view, r.range())) {
          led.add(RangeWire.reported(line.getRange()));
        }
      }
    } catch (IllegalArgumentException e) {
      out.onError(MetaAnswers.invalid("ranges", "a heartbeat line is no range: " + e.getMessage()));
      return;
    }
    long now = clock.getAsLong();
    controller.stats().record(req.getNode().getNodeId(), reports, now);
    answers.reply(out, meta.propose(new MetaChange.Heartbeat(node(req.getNode(), reports, now), led, now)),
        v -> {
          List<String> voters = meta.voterIds();
          return HeartbeatResponse.newBuilder().setMapVersion(v.mapVersion()).addAllMetaVoterNodeIds(voters)
              .addAllMetaVoterAddresses(v.nodes().stream().filter(n -> voters.contains(n.nodeId()))
                  .map(NodeInfo::address).toList())
              .build();
        });
  }

  /**
   * True when the map holds {@code d}'s range over the same span at a generation at least as high: a report
   * of {@code d} is then stale for good (a span's generation never goes down; {@code RangeTable.report}
   * skips it), so a heartbeat need not carry it into the meta range's log. At 10,000 idle ranges every
   * heartbeat's led descriptors were all such (BENCHMARKS.md, "Idle work proportional to change").
   */
  static boolean held(MetaView view, RangeDescriptor d) {
    return view.range(d.rangeId()).filter(m -> m.generation() >= d.generation() && m.start().equals(d.start())
        && m.end().equals(d.end())).isPresent();
  }

  /** The node's record as its heartbeat at {@code now} leaves it: the summary of what it reported. */
  private static NodeInfo node(NodeRecord record, List<RangeReport> reports, long now) {
    NodeInfo n = NodeProtos.node(record);
    int leaders = 0;
    long bytes = 0;
    double qps = 0;
    for (RangeReport r : reports) {
      if (r.role() == RangeReport.Role.LEADER) {
        leaders++;
        bytes += r.stats().bytes();
        qps += r.stats().qps();
      }
    }
    return n.withHeartbeat(new NodeInfo.Heartbeat(now, reports.size(), leaders, n.heartbeat().dormantCount(), bytes,
        qps));
  }
}
