package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.RangeReport;
import dev.rangekv.core.rangemap.RangeIds;
import dev.rangekv.meta.state.MetaCommands;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.StatsProtos;
import dev.rangekv.proto.meta.AllocateRangeIdsRequest;
import dev.rangekv.proto.meta.AllocateRangeIdsResponse;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.proto.meta.HeartbeatResponse;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaNodeServiceGrpc;
import dev.rangekv.proto.meta.NodeHeartbeat;
import dev.rangekv.proto.meta.RegisterNodeRequest;
import dev.rangekv.proto.meta.RegisterNodeResponse;
import dev.rangekv.proto.meta.ReportDescriptorsRequest;
import dev.rangekv.proto.meta.ReportDescriptorsResponse;
import io.grpc.stub.StreamObserver;
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
    if (answers.leading(out)) {
      answers.reply(out, meta.propose(MetaCommand.newBuilder().setAtMillis(clock.getAsLong()).setReport(req).build()),
          v -> ReportDescriptorsResponse.newBuilder().setVersion(v.mapVersion()).build());
    }
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
    CompletableFuture<MetaView> applied = meta.propose(MetaCommand.newBuilder().setAtMillis(now)
        .setRegisterNode(node.toBuilder().setLastHeartbeatMillis(now)).build());
    if (!known) {
      applied = applied.thenCompose(v -> meta.propose(MetaCommands.appendEvents(List.of(Event.of("node-joined",
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
    List<RangeReport> reports;
    try {
      reports = StatsProtos.reports(req.getRangesList()); // the controller's book holds core values only
    } catch (IllegalArgumentException e) {
      out.onError(MetaAnswers.invalid("ranges", "a heartbeat line is no range: " + e.getMessage()));
      return;
    }
    long now = clock.getAsLong();
    controller.stats().record(req.getNode().getNodeId(), reports, now);
    NodeRecord.Builder node = req.getNode().toBuilder().setLastHeartbeatMillis(now)
        .setReplicaCount(req.getRangesCount());
    NodeHeartbeat.Builder hb = NodeHeartbeat.newBuilder();
    int leaders = 0;
    long bytes = 0;
    double qps = 0;
    for (RangeStatsProto r : req.getRangesList()) {
      if (r.getLeader()) {
        leaders++;
        bytes += r.getBytes();
        qps += r.getReadQps() + r.getWriteQps();
        hb.addRanges(r.getRange()); // the leader's descriptor is the authority; followers' may lag
      }
    }
    hb.setNode(node.setLeaderCount(leaders).setBytes(bytes).setQps(qps));
    answers.reply(out, meta.propose(MetaCommand.newBuilder().setAtMillis(now).setHeartbeat(hb).build()),
        v -> {
          List<String> voters = meta.voterIds();
          return HeartbeatResponse.newBuilder().setMapVersion(v.mapVersion()).addAllMetaVoterNodeIds(voters)
              .addAllMetaVoterAddresses(v.nodes().stream().filter(n -> voters.contains(n.nodeId()))
                  .map(NodeInfo::address).toList())
              .build();
        });
  }
}
