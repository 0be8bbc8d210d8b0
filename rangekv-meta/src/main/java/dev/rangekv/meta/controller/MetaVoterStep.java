package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.rebalance.MetaVoterPolicy;
import dev.rangekv.meta.state.MetaGroup;
import io.grpc.Channel;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grows the meta range onto joined nodes, replaces voters on dead ones and spreads voters that share a
 * zone ({@link MetaVoterPolicy}):
 * asks the added node to start an empty meta replica (one non-blocking replica-service call, {@link
 * MetaReplicaCalls}), then
 * changes the group's voters through Raft (the new replica catches up from the leader's log or state).
 * Logged as a {@code "meta-voters"} event, or a {@code "failed"} one; one change runs at a time.
 * Thread-safe.
 */
final class MetaVoterStep {
  private static final Logger log = LoggerFactory.getLogger(MetaVoterStep.class);
  /** Voters the meta range keeps when enough nodes are live: tolerates one failure. */
  static final int TARGET_VOTERS = 3;

  private final MetaGroup meta;
  private final MetaReplicaCalls calls;
  private final EventRecorder events;
  private final LongSupplier clock;
  private final AtomicBoolean running = new AtomicBoolean();

  MetaVoterStep(MetaGroup meta, Function<String, Channel> channels, EventRecorder events, LongSupplier clock) {
    this.meta = meta;
    this.calls = new MetaReplicaCalls(channels);
    this.events = events;
    this.clock = clock;
  }

  /** The change due now, given the live nodes' records; empty when the voters are where they should be. */
  Optional<MetaVoterPolicy.Change> due(List<NodeInfo> liveNodes) {
    Map<String, String> zones = liveNodes.stream()
        .collect(Collectors.toMap(NodeInfo::nodeId, NodeInfo::zone, (a, b) -> a));
    return MetaVoterPolicy.next(meta.voterIds(), meta.leaderNodeId(), zones, TARGET_VOTERS);
  }

  /** Starts the change due now, unless one is running; returns at once. */
  void placeIfDue(List<NodeInfo> liveNodes, List<NodeInfo> nodes) {
    Optional<MetaVoterPolicy.Change> change = due(liveNodes);
    if (change.isEmpty() || !running.compareAndSet(false, true)) {
      return;
    }
    Map<String, NodeInfo> byId = nodes.stream()
        .collect(Collectors.toMap(NodeInfo::nodeId, Function.identity(), (a, b) -> a));
    List<String> before = meta.voterIds();
    MetaVoterPolicy.Change c = change.get();
    CompletableFuture<Void> done;
    try {
      List<NodeInfo> voters = c.voters().stream().map(id -> recordOf(byId, id)).toList();
      done = calls.prepare(recordOf(byId, c.added()), voters).thenCompose(v -> meta.changeVoters(voters));
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    done.handle((v, err) -> {
      long now = clock.getAsLong();
      Event e;
      if (err == null) {
        e = EventRecorder.event("meta-voters", List.of(), c.why(), "meta voters " + before + " -> " + c.voters(), now);
      } else {
        Throwable cause = Controller.unwrap(err);
        // a refusal of this replica's own engine (the voter change) is no gRPC status: its text says why
        String message = cause instanceof io.grpc.StatusRuntimeException || cause.getMessage() == null
            ? StepCalls.message(cause) : cause.getMessage();
        log.warn("meta voter change failed voters={} error={}", c.voters(), message);
        e = EventRecorder.event("failed", List.of(), c.why(), "meta-voters of [] was wanted because: " + c.why(), now)
            .withReason("meta-voters failed: " + message);
      }
      return events.append(List.of(e));
    }).thenCompose(f -> f).whenComplete((v, err) -> {
      if (err != null) {
        log.warn("could not log meta voter change error={}", Controller.unwrap(err).getMessage());
      }
      running.set(false);
    });
  }

  private static NodeInfo recordOf(Map<String, NodeInfo> byId, String nodeId) {
    NodeInfo n = byId.get(nodeId);
    if (n == null) {
      throw new IllegalStateException("node " + nodeId + " has no record in the meta range");
    }
    return n;
  }
}
