package dev.rangekv.meta.controller;

import dev.rangekv.core.rebalance.MetaVoterPolicy;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.proto.NodeRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Grows the meta range onto joined nodes, replaces voters on dead ones and spreads voters that share a
 * zone ({@link MetaVoterPolicy}):
 * starts an empty meta replica on the added node, then changes the group's voters through Raft (the new
 * replica catches up from the leader's log or state). Logged as a {@code "meta-voters"} event; the
 * meta range is leased as range id {@value #META_LEASE_ID} so one change runs at a time.
 */
final class MetaVoterStep {
  /** Lease id of the meta range (range ids start at 1). */
  static final long META_LEASE_ID = 0;
  /** Voters the meta range keeps when enough nodes are live: tolerates one failure. */
  static final int TARGET_VOTERS = 3;

  private MetaVoterStep() {}

  /** The change due now, given the live nodes' records; empty when the voters are where they should be. */
  static Optional<MetaVoterPolicy.Change> due(MetaGroup meta, List<NodeRecord> liveNodes) {
    Map<String, String> zones = liveNodes.stream()
        .collect(Collectors.toMap(NodeRecord::getNodeId, NodeRecord::getZone, (a, b) -> a));
    return MetaVoterPolicy.next(meta.voterIds(), meta.leaderNodeId(), zones, TARGET_VOTERS);
  }

  /** Runs {@code change} under {@code lease}: prepare the added node's replica, then change the voters. */
  static CompletableFuture<List<String>> run(StepRunner steps, InFlight.Lease lease, MetaGroup meta,
      RangeActions actions, List<NodeRecord> nodes, MetaVoterPolicy.Change change) {
    Map<String, NodeRecord> byId = nodes.stream()
        .collect(Collectors.toMap(NodeRecord::getNodeId, Function.identity(), (a, b) -> a));
    List<String> before = meta.voterIds();
    return steps.run(lease, "meta-voters", List.of(), change.why(), () -> {
      List<NodeRecord> voters = change.voters().stream().map(id -> recordOf(byId, id)).toList();
      actions.prepareMetaReplica(recordOf(byId, change.added()), voters);
      meta.changeVoters(voters).join();
      return change.voters();
    }, voters -> new StepRunner.Done(List.of(), List.of(), "meta voters " + before + " -> " + voters, List.of()));
  }

  private static NodeRecord recordOf(Map<String, NodeRecord> byId, String nodeId) {
    NodeRecord n = byId.get(nodeId);
    if (n == null) {
      throw new IllegalStateException("node " + nodeId + " has no record in the meta range");
    }
    return n;
  }
}
