package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.InvalidRuleException;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.placement.RuleCheck;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.state.MapDelta;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.meta.state.RangeWire;
import dev.rangekv.proto.AdminMergeRequest;
import dev.rangekv.proto.AdminMergeResponse;
import dev.rangekv.proto.AdminMoveRequest;
import dev.rangekv.proto.AdminMoveResponse;
import dev.rangekv.proto.AdminSplitRequest;
import dev.rangekv.proto.AdminSplitResponse;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListEventsResponse;
import dev.rangekv.proto.ListNodesRequest;
import dev.rangekv.proto.ListNodesResponse;
import dev.rangekv.proto.ListPlacementRequest;
import dev.rangekv.proto.ListPlacementResponse;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.ListRangeStatsResponse;
import dev.rangekv.proto.LookupRequest;
import dev.rangekv.proto.LookupResponse;
import dev.rangekv.proto.MetaServiceGrpc;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.PreSplitResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.RemoveNodeRequest;
import dev.rangekv.proto.RemoveNodeResponse;
import dev.rangekv.proto.RemovePlacementRequest;
import dev.rangekv.proto.RemovePlacementResponse;
import dev.rangekv.proto.SetPlacementRequest;
import dev.rangekv.proto.SetPlacementResponse;
import dev.rangekv.proto.WatchRangesRequest;
import dev.rangekv.proto.WhyRequest;
import dev.rangekv.proto.WhyResponse;
import dev.rangekv.proto.convert.EventProtos;
import dev.rangekv.proto.convert.NodeProtos;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.convert.StatsProtos;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * The meta API on every node. Only the meta leader answers: elsewhere every call fails with {@code
 * NOT_LEADER} (range id 0, the meta leader's node id and client address when known). Reads come from
 * the leader's applied view, the {@link StatsBook} and the {@link WhyBook}; admin calls run through the
 * {@link Controller} and answer when done. Never blocks a gRPC thread. What nodes report is
 * {@link MetaNodeServiceImpl}'s.
 */
public final class MetaServiceImpl extends MetaServiceGrpc.MetaServiceImplBase {
  /** The most ranges one Lookup answers (a client at connect asks for the whole map up to this). */
  public static final int MAX_LOOKUP_RANGES = 4096;
  private final MetaGroup meta;
  private final Controller controller;
  private final LongSupplier clock;
  private final RangeWatchers watchers;
  private final MetaAnswers answers;

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
    this.answers = new MetaAnswers(meta);
  }

  /** The meta range applied an entry: pushes map changes to watchers, or ends their streams off the leader. */
  public void mapChanged() {
    if (watchers.size() == 0) {
      return;
    }
    if (meta.isLeader()) {
      watchers.mapChanged();
    } else {
      watchers.closeAll(answers.notLeader());
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
    if (!answers.leading(out)) {
      return;
    }
    MetaView view = meta.view();
    if (view.mapVersion() == 0 || view.ranges().isEmpty()) {
      out.onError(RangeKvErrors.toStatusException(RangeKvErrors.unavailable("the meta range has no map yet", true)));
      return;
    }
    int limit = Math.max(1, Math.min(req.getLimit(), MAX_LOOKUP_RANGES));
    List<RangeDescriptor> span = view.span(ProtoValues.key(req.getKey()),
        ProtoValues.end(req.getEnd(), req.getEndInfinite()), limit + 1);
    boolean more = span.size() > limit;
    List<RangeDescriptorProto> answered = RangeWire.protos(view, more ? span.subList(0, limit) : span);
    LookupResponse.Builder b = LookupResponse.newBuilder().setRange(answered.get(0))
        .addAllFollowing(answered.subList(1, answered.size())).setMapVersion(view.mapVersion()).setMore(more);
    for (RangeDescriptorProto r : answered) {
      String leader = leaderOf(r.getRangeId());
      if (!leader.isEmpty()) {
        b.putLeaderNodeIds(r.getRangeId(), leader);
      }
    }
    MetaAnswers.answer(out, b.build());
  }

  @Override
  public void getMap(GetMapRequest req, StreamObserver<GetMapResponse> out) {
    if (answers.leading(out)) {
      MetaView view = meta.view();
      MapDelta changes = view.changesSince(req.getSinceVersion());
      GetMapResponse.Builder b = RangeWire.changes(view, changes);
      for (RangeDescriptor r : changes.ranges()) {
        String leader = leaderOf(r.rangeId());
        if (!leader.isEmpty()) {
          b.putLeaderNodeIds(r.rangeId(), leader);
        }
      }
      MetaAnswers.answer(out, b.build());
    }
  }

  /** Pushes map changes until this replica stops leading (the stream then ends with NOT_LEADER). */
  @Override
  public void watchRanges(WatchRangesRequest req, StreamObserver<GetMapResponse> out) {
    if (answers.leading(out)) {
      watchers.add(req.getSinceVersion(), out);
    }
  }

  private String leaderOf(long rangeId) {
    return controller.stats().leaderReport(rangeId).map(StatsBook.LeaderReport::nodeId).orElse("");
  }

  @Override
  public void listNodes(ListNodesRequest req, StreamObserver<ListNodesResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    long now = clock.getAsLong();
    long dead = controller.config().deadNodeTimeoutMillis();
    ListNodesResponse.Builder b = ListNodesResponse.newBuilder().setMetaLeaderNodeId(meta.leaderNodeId().orElse(""))
        .addAllMetaVoterNodeIds(meta.voterIds());
    for (NodeInfo n : meta.view().nodes()) {
      b.addNodes(NodeProtos.proto(n));
      if (now - n.lastHeartbeatMillis() <= dead) {
        b.addLiveNodeIds(n.nodeId());
      }
    }
    MetaAnswers.answer(out, b.build());
  }

  @Override
  public void listRangeStats(ListRangeStatsRequest req, StreamObserver<ListRangeStatsResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    MetaView view = meta.view();
    ListRangeStatsResponse.Builder b = ListRangeStatsResponse.newBuilder().setMapVersion(view.mapVersion());
    view.ranges().forEach(d -> b.addRanges(stats(RangeWire.proto(view, d))));
    MetaAnswers.answer(out, b.build());
  }

  @Override
  public void listEvents(ListEventsRequest req, StreamObserver<ListEventsResponse> out) {
    if (answers.leading(out)) {
      MetaAnswers.answer(out, ListEventsResponse.newBuilder()
          .addAllEvents(EventProtos.protos(meta.view().events(req.getAfterSeq(), req.getLimit(), req.getRangeId()))).build());
    }
  }

  @Override
  public void why(WhyRequest req, StreamObserver<WhyResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    MetaView view = meta.view();
    Optional<RangeDescriptorProto> d = view.range(req.getRangeId()).map(r -> RangeWire.proto(view, r));
    if (d.isEmpty()) {
      out.onError(MetaAnswers.invalid("range_id", "unknown range " + req.getRangeId()));
      return;
    }
    List<Event> events = new ArrayList<>(meta.view().events(0, 0, req.getRangeId()));
    Collections.reverse(events);
    MetaAnswers.answer(out, WhyResponse.newBuilder().setRange(stats(d.get()))
        .addAllDecisions(EventProtos.protos(controller.why().decisions(req.getRangeId())))
        .addAllEvents(EventProtos.protos(events)).build());
  }

  @Override
  public void split(AdminSplitRequest req, StreamObserver<AdminSplitResponse> out) {
    if (answers.leading(out)) {
      Optional<Key> key = req.getSplitKey().isEmpty() ? Optional.empty() : Optional.of(ProtoValues.key(req.getSplitKey()));
      answers.reply(out, controller.split(req.getRangeId(), key), r -> AdminSplitResponse.newBuilder()
          .setLeft(wire(r.left())).setRight(wire(r.right())).build());
    }
  }

  @Override
  public void merge(AdminMergeRequest req, StreamObserver<AdminMergeResponse> out) {
    if (answers.leading(out)) {
      answers.reply(out, controller.merge(req.getLeftRangeId()),
          d -> AdminMergeResponse.newBuilder().setMerged(wire(d)).build());
    }
  }

  @Override
  public void move(AdminMoveRequest req, StreamObserver<AdminMoveResponse> out) {
    if (answers.leading(out)) {
      answers.reply(out, controller.move(req.getRangeId(), req.getFromNodeId(), req.getToNodeId()),
          d -> AdminMoveResponse.newBuilder().setRange(wire(d)).build());
    }
  }

  @Override
  public void preSplit(PreSplitRequest req, StreamObserver<PreSplitResponse> out) {
    if (answers.leading(out)) {
      List<Key> keys = req.getSplitKeysList().stream().map(ProtoValues::key).toList();
      answers.reply(out, controller.presplit(keys, req.getUniform(), req.getScatter()),
          ds -> PreSplitResponse.newBuilder().addAllRanges(RangeWire.protos(meta.view(), ds)).build());
    }
  }

  /**
   * Forgets a dead node for good. Refused (nothing changes) while it is live, a meta voter, or named by a
   * range: the controller repairs a dead node's replicas first, then the operator removes it.
   */
  @Override
  public void removeNode(RemoveNodeRequest req, StreamObserver<RemoveNodeResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    String id = req.getNodeId();
    Optional<NodeInfo> node = meta.view().nodes().stream().filter(n -> n.nodeId().equals(id)).findFirst();
    if (node.isEmpty()) {
      out.onError(MetaAnswers.invalid("node_id", "no node " + id + " in the cluster"));
      return;
    }
    long now = clock.getAsLong();
    if (now - node.get().lastHeartbeatMillis() <= controller.config().deadNodeTimeoutMillis()) {
      out.onError(MetaAnswers.invalid("node.live", "node " + id + " is live (heard from "
          + (now - node.get().lastHeartbeatMillis()) + " ms ago): stop it first, then remove it once it is dead"));
      return;
    }
    if (meta.voterIds().contains(id)) {
      out.onError(MetaAnswers.invalid("node.meta-voter", "node " + id + " is a meta voter: the controller replaces it first; try again"
          + " later"));
      return;
    }
    List<Long> held = meta.view().ranges().stream()
        .filter(d -> d.replicas().contains(id)).map(RangeDescriptor::rangeId).limit(10).toList();
    if (!held.isEmpty()) {
      out.onError(MetaAnswers.invalid("node.replicas", "node " + id + " still holds replicas of ranges " + held
          + ": the controller repairs them onto live nodes after node.dead-timeout; try again then"));
      return;
    }
    CompletableFuture<MetaView> applied = meta.propose(new MetaChange.RemoveNode(id, now))
        .thenCompose(v -> meta.propose(new MetaChange.AppendEvents(List.of(Event.of("node-removed", List.of(),
            "removed by an operator", "node " + id + " at " + node.get().address() + " forgotten", now)), now)));
    answers.reply(out, applied, v -> RemoveNodeResponse.newBuilder().setRemoved(NodeProtos.proto(node.get())).build());
  }

  /**
   * Sets a placement rule: refused when malformed or when no known node could ever meet it; stored with
   * a {@code placement-set} event, plus a {@code placement-warning} event when the live nodes cannot
   * meet it now.
   */
  @Override
  public void setPlacement(SetPlacementRequest req, StreamObserver<SetPlacementResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    PlacementRule rule;
    try {
      rule = PlacementProtos.rule(req.getRule().toBuilder().setVersion(0).build());
    } catch (InvalidRuleException e) {
      out.onError(MetaAnswers.invalid("placement.rule", e.getMessage()));
      return;
    }
    long now = clock.getAsLong();
    List<NodeStats> known = meta.view().nodes().stream().map(NodeInfo::stats).toList();
    java.util.Set<String> live = new java.util.HashSet<>();
    known.stream().filter(n -> n.isLive(now, controller.config().deadNodeTimeoutMillis()))
        .forEach(n -> live.add(n.nodeId()));
    RuleCheck check = RuleCheck.of(rule, known, live);
    if (check.refused()) {
      out.onError(MetaAnswers.invalid("placement.rule", "rule refused: " + check.reason()));
      return;
    }
    List<Event> events = new ArrayList<>(List.of(Event.of("placement-set", List.of(),
        "placement rule set by an operator", "rule " + rule, now)));
    if (!check.reason().isEmpty()) {
      events.add(Event.of("placement-warning", List.of(), "the live nodes cannot meet the rule now",
          "rule " + rule + ": " + check.reason(), now));
    }
    CompletableFuture<MetaView> applied = meta.propose(new MetaChange.Placement(rule, false, now))
        .thenCompose(v -> meta.propose(new MetaChange.AppendEvents(events, now)));
    answers.reply(out, applied, v -> {
      PlacementRule stored = v.placementRules().find(rule.start(), rule.end()).orElse(rule);
      return SetPlacementResponse.newBuilder().setRule(PlacementProtos.proto(stored))
          .setVersion(v.placementRules().version()).setWarning(check.reason()).build();
    });
  }

  @Override
  public void listPlacement(ListPlacementRequest req, StreamObserver<ListPlacementResponse> out) {
    if (answers.leading(out)) {
      var rules = meta.view().placementRules();
      ListPlacementResponse.Builder b = ListPlacementResponse.newBuilder().setVersion(rules.version());
      rules.rules().forEach(r -> b.addRules(PlacementProtos.proto(r)));
      MetaAnswers.answer(out, b.build());
    }
  }

  @Override
  public void removePlacement(RemovePlacementRequest req, StreamObserver<RemovePlacementResponse> out) {
    if (!answers.leading(out)) {
      return;
    }
    var start = ProtoValues.key(req.getStart());
    var end = ProtoValues.end(req.getEnd(), req.getEndInfinite());
    Optional<PlacementRule> rule = meta.view().placementRules().find(start, end);
    if (rule.isEmpty()) {
      out.onError(MetaAnswers.invalid("placement.span", "no placement rule for the span [" + start + ", " + end + ")"));
      return;
    }
    long now = clock.getAsLong();
    CompletableFuture<MetaView> applied = meta.propose(new MetaChange.Placement(rule.get(), true, now))
        .thenCompose(v -> meta.propose(new MetaChange.AppendEvents(List.of(Event.of("placement-removed", List.of(),
            "placement rule removed by an operator", "rule " + rule.get(), now)), now)));
    answers.reply(out, applied, v -> RemovePlacementResponse.newBuilder().setRemoved(PlacementProtos.proto(rule.get()))
        .setVersion(v.placementRules().version()).build());
  }

  // ------------------------------------------------------------------------------------------

  /**
   * An admin call's resulting range in its wire form, with the replica addresses the map answers for it
   * now (see {@link MetaView#replicaAddresses}).
   */
  private RangeDescriptorProto wire(RangeDescriptor d) {
    return RangeWire.proto(meta.view(), d);
  }

  /**
   * The meta descriptor with its leader's latest stats (numbers zero when none are known) and its
   * placement-rule violations at the last tick.
   */
  private RangeStatsProto stats(RangeDescriptorProto d) {
    return controller.stats().leaderReport(d.getRangeId())
        .map(r -> StatsProtos.proto(r.report(), n -> "").toBuilder().setRange(d).setLeaderNodeId(r.nodeId()))
        .orElseGet(() -> RangeStatsProto.newBuilder().setRange(d))
        .setDormant(controller.stats().isDormant(d.getRangeId()))
        .setPlacementViolations(controller.placementViolations(d.getRangeId())).build();
  }
}
