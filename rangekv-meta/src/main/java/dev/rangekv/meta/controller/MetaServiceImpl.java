package dev.rangekv.meta.controller;

import dev.rangekv.core.placement.InvalidRuleException;
import dev.rangekv.core.placement.PlacementRule;
import dev.rangekv.core.placement.RuleCheck;
import dev.rangekv.core.policy.NodeStats;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.AdminMergeRequest;
import dev.rangekv.proto.AdminMergeResponse;
import dev.rangekv.proto.AdminMoveRequest;
import dev.rangekv.proto.AdminMoveResponse;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.HeartbeatRequest;
import dev.rangekv.proto.HeartbeatResponse;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListEventsResponse;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.ListRangeStatsResponse;
import dev.rangekv.proto.LookupRequest;
import dev.rangekv.proto.LookupResponse;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.PreSplitResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.RegisterNodeRequest;
import dev.rangekv.proto.RemoveNodeRequest;
import dev.rangekv.proto.RemoveNodeResponse;
import dev.rangekv.proto.RegisterNodeResponse;
import dev.rangekv.proto.ReportDescriptorsRequest;
import dev.rangekv.proto.ReportDescriptorsResponse;
import dev.rangekv.proto.WatchRangesRequest;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.proto.WhyResponse;
import dev.rangekv.proto.ListPlacementRequest;
import dev.rangekv.proto.ListPlacementResponse;
import dev.rangekv.proto.RemovePlacementRequest;
import dev.rangekv.proto.RemovePlacementResponse;
import dev.rangekv.proto.SetPlacementRequest;
import dev.rangekv.proto.SetPlacementResponse;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.meta.AppendEvents;
import dev.rangekv.proto.meta.PlacementChange;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.NodeHeartbeat;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The meta API on every node. Only the meta leader answers: elsewhere every call fails with {@code
 * NOT_LEADER} (range id 0, the meta leader's node id and client address when known). Reads come from
 * the leader's applied view, the {@link StatsBook} and the {@link WhyBook}; node registrations,
 * heartbeats and reported descriptors are proposed to the meta range stamped with the leader's clock;
 * admin calls run through the {@link Controller} and answer when done. Never blocks a gRPC thread.
 */
public final class MetaServiceImpl extends MetaServiceGrpc.MetaServiceImplBase {
  /** The most ranges one Lookup answers (a client at connect asks for the whole map up to this). */
  public static final int MAX_LOOKUP_RANGES = 4096;
  private final MetaGroup meta;
  private final Controller controller;
  private final LongSupplier clock;
  private final RangeWatchers watchers;

  /** A service whose {@code WatchRanges} pushes run on the calling thread (tests). */
  public MetaServiceImpl(MetaGroup meta, Controller controller, LongSupplier clock) {
    this(meta, controller, clock, Runnable::run);
  }

  /**
   * @param watchSends runs the sends to {@code WatchRanges} streams (never the Raft apply thread); call
   *     {@link #mapChanged} after every applied meta entry
   */
  public MetaServiceImpl(MetaGroup meta, Controller controller, LongSupplier clock, Executor watchSends) {
    this.meta = meta;
    this.controller = controller;
    this.clock = clock;
    this.watchers = new RangeWatchers(meta::view, this::leaderOf, watchSends);
  }

  /** The meta range applied an entry: pushes map changes to watchers, or ends their streams off the leader. */
  public void mapChanged() {
    if (watchers.size() == 0) {
      return;
    }
    if (meta.isLeader()) {
      watchers.mapChanged();
    } else {
      watchers.closeAll(notLeader());
    }
  }

  /** How many {@code WatchRanges} streams are open here. */
  public int watchCount() {
    return watchers.size();
  }

  /**
   * The range holding the key, and with a limit the ranges after it in the asked span, each with the
   * leader the heartbeats report: one call fills a client's cache for a span (or, from the empty key,
   * for the whole map when it is small).
   */
  @Override
  public void lookup(LookupRequest req, StreamObserver<LookupResponse> out) {
    if (!leading(out)) {
      return;
    }
    MetaView view = meta.view();
    if (view.mapVersion() == 0 || view.ranges().isEmpty()) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.unavailable("the meta range has no map yet", true)));
      return;
    }
    int limit = Math.max(1, Math.min(req.getLimit(), MAX_LOOKUP_RANGES));
    List<RangeDescriptorProto> span = view.span(req.getKey(), req.getEnd(), req.getEndInfinite(), limit + 1);
    boolean more = span.size() > limit;
    List<RangeDescriptorProto> answered = more ? span.subList(0, limit) : span;
    LookupResponse.Builder b = LookupResponse.newBuilder().setRange(answered.get(0))
        .addAllFollowing(answered.subList(1, answered.size())).setMapVersion(view.mapVersion()).setMore(more);
    for (RangeDescriptorProto r : answered) {
      String leader = leaderOf(r.getRangeId());
      if (!leader.isEmpty()) {
        b.putLeaderNodeIds(r.getRangeId(), leader);
      }
    }
    answer(out, b.build());
  }

  @Override
  public void getMap(GetMapRequest req, StreamObserver<GetMapResponse> out) {
    if (leading(out)) {
      GetMapResponse changes = meta.view().changesSince(req.getSinceVersion());
      GetMapResponse.Builder b = changes.toBuilder();
      for (RangeDescriptorProto r : changes.getRangesList()) {
        String leader = leaderOf(r.getRangeId());
        if (!leader.isEmpty()) {
          b.putLeaderNodeIds(r.getRangeId(), leader);
        }
      }
      answer(out, b.build());
    }
  }

  /** Pushes map changes until this replica stops leading (the stream then ends with NOT_LEADER). */
  @Override
  public void watchRanges(WatchRangesRequest req, StreamObserver<GetMapResponse> out) {
    if (leading(out)) {
      watchers.add(req.getSinceVersion(), out);
    }
  }

  private String leaderOf(long rangeId) {
    return controller.stats().leaderReport(rangeId).map(StatsBook.LeaderReport::nodeId).orElse("");
  }

  @Override
  public void reportDescriptors(ReportDescriptorsRequest req, StreamObserver<ReportDescriptorsResponse> out) {
    if (leading(out)) {
      reply(out, meta.propose(MetaCommand.newBuilder().setAtMillis(clock.getAsLong()).setReport(req).build()),
          v -> ReportDescriptorsResponse.newBuilder().setVersion(v.mapVersion()).build());
    }
  }

  @Override
  public void registerNode(RegisterNodeRequest req, StreamObserver<RegisterNodeResponse> out) {
    if (!leading(out)) {
      return;
    }
    NodeRecord node = req.getNode();
    if (node.getNodeId().isEmpty() || node.getAddress().isEmpty()) {
      out.onError(invalid("node_id", "a node registers with a node id and a client address"));
      return;
    }
    boolean known = meta.view().nodes().stream().anyMatch(n -> n.getNodeId().equals(node.getNodeId()));
    long now = clock.getAsLong();
    controller.stats().recordRegistration(HeartbeatRequest.newBuilder().setNode(node).build());
    CompletableFuture<MetaView> applied = meta.propose(MetaCommand.newBuilder().setAtMillis(now)
        .setRegisterNode(node.toBuilder().setLastHeartbeatMillis(now)).build());
    if (!known) {
      applied = applied.thenCompose(v -> meta.propose(MetaCommand.newBuilder().setAtMillis(now)
          .setEvents(dev.rangekv.proto.meta.AppendEvents.newBuilder().addEvents(EventProto.newBuilder()
              .setKind("node-joined").setAtMillis(now).setReason("node registered")
              .setDetail("node " + node.getNodeId() + " at " + node.getAddress()
                  + (node.getZone().isEmpty() ? "" : " zone " + node.getZone()))))
          .build()));
    }
    reply(out, applied, v -> RegisterNodeResponse.newBuilder().addAllNodes(v.nodes()).build());
  }

  @Override
  public void heartbeat(HeartbeatRequest req, StreamObserver<HeartbeatResponse> out) {
    if (!leading(out)) {
      return;
    }
    if (req.getNode().getNodeId().isEmpty()) {
      out.onError(invalid("node_id", "a heartbeat names its node id"));
      return;
    }
    long now = clock.getAsLong();
    controller.stats().record(req, now);
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
    reply(out, meta.propose(MetaCommand.newBuilder().setAtMillis(now).setHeartbeat(hb).build()),
        v -> {
          List<String> voters = meta.voterIds();
          return HeartbeatResponse.newBuilder().setMapVersion(v.mapVersion()).addAllMetaVoterNodeIds(voters)
              .addAllMetaVoterAddresses(v.nodes().stream().filter(n -> voters.contains(n.getNodeId()))
                  .map(NodeRecord::getAddress).toList())
              .build();
        });
  }

  @Override
  public void listNodes(ListNodesRequest req, StreamObserver<ListNodesResponse> out) {
    if (!leading(out)) {
      return;
    }
    long now = clock.getAsLong();
    long dead = controller.config().deadNodeTimeoutMillis();
    ListNodesResponse.Builder b = ListNodesResponse.newBuilder().setMetaLeaderNodeId(meta.leaderNodeId().orElse(""))
        .addAllMetaVoterNodeIds(meta.voterIds());
    for (NodeRecord n : meta.view().nodes()) {
      b.addNodes(n);
      if (now - n.getLastHeartbeatMillis() <= dead) {
        b.addLiveNodeIds(n.getNodeId());
      }
    }
    answer(out, b.build());
  }

  @Override
  public void listRangeStats(ListRangeStatsRequest req, StreamObserver<ListRangeStatsResponse> out) {
    if (!leading(out)) {
      return;
    }
    MetaView view = meta.view();
    ListRangeStatsResponse.Builder b = ListRangeStatsResponse.newBuilder().setMapVersion(view.mapVersion());
    view.ranges().forEach(d -> b.addRanges(stats(d)));
    answer(out, b.build());
  }

  @Override
  public void listEvents(ListEventsRequest req, StreamObserver<ListEventsResponse> out) {
    if (leading(out)) {
      answer(out, ListEventsResponse.newBuilder()
          .addAllEvents(meta.view().events(req.getAfterSeq(), req.getLimit(), req.getRangeId())).build());
    }
  }

  @Override
  public void why(WhyRequest req, StreamObserver<WhyResponse> out) {
    if (!leading(out)) {
      return;
    }
    Optional<RangeDescriptorProto> d = meta.view().range(req.getRangeId());
    if (d.isEmpty()) {
      out.onError(invalid("range_id", "unknown range " + req.getRangeId()));
      return;
    }
    List<EventProto> events = new ArrayList<>(meta.view().events(0, 0, req.getRangeId()));
    Collections.reverse(events);
    answer(out, WhyResponse.newBuilder().setRange(stats(d.get()))
        .addAllDecisions(controller.why().decisions(req.getRangeId())).addAllEvents(events).build());
  }

  @Override
  public void split(AdminSplitRequest req, StreamObserver<AdminSplitResponse> out) {
    if (leading(out)) {
      Optional<com.google.protobuf.ByteString> key = req.getSplitKey().isEmpty() ? Optional.empty()
          : Optional.of(req.getSplitKey());
      reply(out, controller.split(req.getRangeId(), key), r -> r);
    }
  }

  @Override
  public void merge(AdminMergeRequest req, StreamObserver<AdminMergeResponse> out) {
    if (leading(out)) {
      reply(out, controller.merge(req.getLeftRangeId()), d -> AdminMergeResponse.newBuilder().setMerged(d).build());
    }
  }

  @Override
  public void move(AdminMoveRequest req, StreamObserver<AdminMoveResponse> out) {
    if (leading(out)) {
      reply(out, controller.move(req.getRangeId(), req.getFromNodeId(), req.getToNodeId()),
          d -> AdminMoveResponse.newBuilder().setRange(d).build());
    }
  }

  @Override
  public void preSplit(PreSplitRequest req, StreamObserver<PreSplitResponse> out) {
    if (leading(out)) {
      reply(out, controller.presplit(req.getSplitKeysList(), req.getUniform(), req.getScatter()),
          ds -> PreSplitResponse.newBuilder().addAllRanges(ds).build());
    }
  }

  /**
   * Forgets a dead node for good. Refused (nothing changes) while it is live, a meta voter, or named by a
   * range: the controller repairs a dead node's replicas first, then the operator removes it.
   */
  @Override
  public void removeNode(RemoveNodeRequest req, StreamObserver<RemoveNodeResponse> out) {
    if (!leading(out)) {
      return;
    }
    String id = req.getNodeId();
    Optional<NodeRecord> node = meta.view().nodes().stream().filter(n -> n.getNodeId().equals(id)).findFirst();
    if (node.isEmpty()) {
      out.onError(invalid("node_id", "no node " + id + " in the cluster"));
      return;
    }
    long now = clock.getAsLong();
    if (now - node.get().getLastHeartbeatMillis() <= controller.config().deadNodeTimeoutMillis()) {
      out.onError(invalid("node.live", "node " + id + " is live (heard from "
          + (now - node.get().getLastHeartbeatMillis()) + " ms ago): stop it first, then remove it once it is dead"));
      return;
    }
    if (meta.voterIds().contains(id)) {
      out.onError(invalid("node.meta-voter", "node " + id + " is a meta voter: the controller replaces it first; try again"
          + " later"));
      return;
    }
    List<Long> held = meta.view().ranges().stream()
        .filter(d -> d.getReplicasList().stream().anyMatch(r -> r.getNodeId().equals(id)))
        .map(RangeDescriptorProto::getRangeId).limit(10).toList();
    if (!held.isEmpty()) {
      out.onError(invalid("node.replicas", "node " + id + " still holds replicas of ranges " + held
          + ": the controller repairs them onto live nodes after node.dead-timeout; try again then"));
      return;
    }
    CompletableFuture<MetaView> applied = meta.propose(MetaCommand.newBuilder().setAtMillis(now)
        .setRemoveNode(dev.rangekv.proto.meta.RemoveNode.newBuilder().setNodeId(id)).build())
        .thenCompose(v -> meta.propose(MetaCommand.newBuilder().setAtMillis(now)
            .setEvents(dev.rangekv.proto.meta.AppendEvents.newBuilder().addEvents(EventProto.newBuilder()
                .setKind("node-removed").setAtMillis(now).setReason("removed by an operator")
                .setDetail("node " + id + " at " + node.get().getAddress() + " forgotten")))
            .build()));
    reply(out, applied, v -> RemoveNodeResponse.newBuilder().setRemoved(node.get()).build());
  }

  /**
   * Sets a placement rule: refused when malformed or when no known node could ever meet it; stored with
   * a {@code placement-set} event, plus a {@code placement-warning} event when the live nodes cannot
   * meet it now.
   */
  @Override
  public void setPlacement(SetPlacementRequest req, StreamObserver<SetPlacementResponse> out) {
    if (!leading(out)) {
      return;
    }
    PlacementRule rule;
    try {
      rule = PlacementProtos.rule(req.getRule().toBuilder().setVersion(0).build());
    } catch (InvalidRuleException e) {
      out.onError(invalid("placement.rule", e.getMessage()));
      return;
    }
    long now = clock.getAsLong();
    List<NodeStats> known = meta.view().nodes().stream().map(SnapshotBuilder::node).toList();
    java.util.Set<String> live = new java.util.HashSet<>();
    known.stream().filter(n -> n.isLive(now, controller.config().deadNodeTimeoutMillis()))
        .forEach(n -> live.add(n.nodeId()));
    RuleCheck check = RuleCheck.of(rule, known, live);
    if (check.refused()) {
      out.onError(invalid("placement.rule", "rule refused: " + check.reason()));
      return;
    }
    AppendEvents.Builder events = AppendEvents.newBuilder().addEvents(EventProto.newBuilder().setKind("placement-set")
        .setAtMillis(now).setReason("placement rule set by an operator").setDetail("rule " + rule));
    if (!check.reason().isEmpty()) {
      events.addEvents(EventProto.newBuilder().setKind("placement-warning").setAtMillis(now)
          .setReason("the live nodes cannot meet the rule now").setDetail("rule " + rule + ": " + check.reason()));
    }
    CompletableFuture<MetaView> applied = meta.propose(MetaCommand.newBuilder().setAtMillis(now)
            .setPlacement(PlacementChange.newBuilder().setSet(PlacementProtos.proto(rule))).build())
        .thenCompose(v -> meta.propose(MetaCommand.newBuilder().setAtMillis(now).setEvents(events).build()));
    reply(out, applied, v -> {
      PlacementRule stored = v.placementRules().find(rule.start(), rule.end()).orElse(rule);
      return SetPlacementResponse.newBuilder().setRule(PlacementProtos.proto(stored))
          .setVersion(v.placementRules().version()).setWarning(check.reason()).build();
    });
  }

  @Override
  public void listPlacement(ListPlacementRequest req, StreamObserver<ListPlacementResponse> out) {
    if (leading(out)) {
      var rules = meta.view().placementRules();
      ListPlacementResponse.Builder b = ListPlacementResponse.newBuilder().setVersion(rules.version());
      rules.rules().forEach(r -> b.addRules(PlacementProtos.proto(r)));
      answer(out, b.build());
    }
  }

  @Override
  public void removePlacement(RemovePlacementRequest req, StreamObserver<RemovePlacementResponse> out) {
    if (!leading(out)) {
      return;
    }
    var start = ProtoValues.key(req.getStart());
    var end = ProtoValues.end(req.getEnd(), req.getEndInfinite());
    Optional<PlacementRule> rule = meta.view().placementRules().find(start, end);
    if (rule.isEmpty()) {
      out.onError(invalid("placement.span", "no placement rule for the span [" + start + ", " + end + ")"));
      return;
    }
    long now = clock.getAsLong();
    CompletableFuture<MetaView> applied = meta.propose(MetaCommand.newBuilder().setAtMillis(now)
            .setPlacement(PlacementChange.newBuilder().setRemove(PlacementProtos.proto(rule.get()))).build())
        .thenCompose(v -> meta.propose(MetaCommand.newBuilder().setAtMillis(now).setEvents(AppendEvents.newBuilder()
            .addEvents(EventProto.newBuilder().setKind("placement-removed").setAtMillis(now)
                .setReason("placement rule removed by an operator").setDetail("rule " + rule.get()))).build()));
    reply(out, applied, v -> RemovePlacementResponse.newBuilder().setRemoved(PlacementProtos.proto(rule.get()))
        .setVersion(v.placementRules().version()).build());
  }

  // ------------------------------------------------------------------------------------------

  /**
   * The meta descriptor with its leader's latest stats (numbers zero when none are known) and its
   * placement-rule violations at the last tick.
   */
  private RangeStatsProto stats(RangeDescriptorProto d) {
    return controller.stats().leaderReport(d.getRangeId())
        .map(r -> r.stats().toBuilder().setRange(d).setLeaderNodeId(r.nodeId()))
        .orElseGet(() -> RangeStatsProto.newBuilder().setRange(d))
        .setDormant(controller.stats().isDormant(d.getRangeId()))
        .setPlacementViolations(controller.placementViolations(d.getRangeId())).build();
  }

  /** True when this node leads the meta range; otherwise answers NOT_LEADER with the hint. */
  private boolean leading(StreamObserver<?> out) {
    if (meta.isLeader()) {
      return true;
    }
    out.onError(notLeader());
    return false;
  }

  private StatusRuntimeException notLeader() {
    String leader = meta.leaderNodeId().orElse("");
    String address = meta.view().nodes().stream().filter(n -> n.getNodeId().equals(leader))
        .map(NodeRecord::getAddress).findFirst().orElse("");
    return RangeKvErrors.toStatusException(RangeKvErrors.notLeader(0, leader, address, true));
  }

  private static StatusRuntimeException invalid(String limit, String message) {
    return RangeKvErrors.toStatusException(RangeKvErrors.invalidArgument(limit, message));
  }

  private static <T> void answer(StreamObserver<T> out, T value) {
    out.onNext(value);
    out.onCompleted();
  }

  private <V, T> void reply(StreamObserver<T> out, CompletableFuture<V> f, Function<V, T> map) {
    f.whenComplete((v, err) -> {
      if (err == null) {
        answer(out, map.apply(v));
      } else {
        out.onError(status(err));
      }
    });
  }

  private StatusRuntimeException status(Throwable t) {
    Throwable c = Controller.unwrap(t);
    if (c instanceof StatusRuntimeException s) {
      return s;
    }
    if (c instanceof AdminRejectedException a) {
      return invalid(a.limit(), a.getMessage());
    }
    if (c instanceof RangeBusyException b) {
      return RangeKvErrors.toStatusException(RangeKvErrors.unavailable(b.getMessage(), true));
    }
    if (!meta.isLeader()) {
      return notLeader();
    }
    if (c instanceof IllegalArgumentException) {
      // e.g. the meta state refusing a malformed command (a reported map that does not tile)
      return invalid("request", c.getMessage());
    }
    String message = c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    return RangeKvErrors.toStatusException(RangeKvErrors.unavailable(message, false));
  }
}
