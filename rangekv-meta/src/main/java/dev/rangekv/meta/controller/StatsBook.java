package dev.rangekv.meta.controller;

import dev.rangekv.proto.HeartbeatRequest;
import dev.rangekv.proto.RangeStatsProto;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meta leader's in-memory book of heartbeats: the latest {@link HeartbeatRequest} of each node and,
 * for each range, the stats reported by the node leading it (highest generation wins; at equal
 * generation the later report wins, so a new leader replaces the old one).
 *
 * <p>Not replicated: a new meta leader starts empty and fills up within one heartbeat interval.
 * Thread-safe: heartbeats arrive on gRPC threads while the controller reads on its own.
 */
public final class StatsBook {
  private final Map<String, HeartbeatRequest> heartbeats = new ConcurrentHashMap<>();
  private final Map<Long, LeaderReport> leaders = new ConcurrentHashMap<>();
  /** Ranges a replica reported dormant since their last leader report, with the reported generation. */
  private final Map<Long, Long> dormant = new ConcurrentHashMap<>();

  /**
   * One range's latest stats as its leader reported them.
   *
   * @param nodeId the reporting (leading) node
   * @param stats what it reported
   * @param receivedMillis when the heartbeat arrived, on the meta leader's clock
   */
  public record LeaderReport(String nodeId, RangeStatsProto stats, long receivedMillis) {
    public LeaderReport {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(stats, "stats");
    }

    public long generation() {
      return stats.getRange().getGeneration();
    }
  }

  /** Records a heartbeat: the node's latest request and the stats of every range it leads. */
  public void record(HeartbeatRequest heartbeat, long nowMillis) {
    String nodeId = heartbeat.getNode().getNodeId();
    if (nodeId.isEmpty()) {
      throw new IllegalArgumentException("heartbeat without a node id");
    }
    heartbeats.put(nodeId, heartbeat);
    for (RangeStatsProto r : heartbeat.getRangesList()) {
      if (r.getDormant()) {
        // closed groups: no leader to measure, so the planner leaves the range alone until it wakes
        dormant.put(r.getRange().getRangeId(), r.getRange().getGeneration());
        leaders.computeIfPresent(r.getRange().getRangeId(),
            (id, old) -> old.generation() <= r.getRange().getGeneration() ? null : old);
        continue;
      }
      if (!r.getLeader()) {
        continue;
      }
      dormant.remove(r.getRange().getRangeId());
      LeaderReport fresh = new LeaderReport(nodeId, r, nowMillis);
      leaders.merge(r.getRange().getRangeId(), fresh,
          (old, neu) -> neu.generation() >= old.generation() ? neu : old);
    }
  }

  /** Records a node that registered but has not heartbeated yet (keeps an existing heartbeat). */
  public void recordRegistration(HeartbeatRequest emptyHeartbeat) {
    heartbeats.putIfAbsent(emptyHeartbeat.getNode().getNodeId(), emptyHeartbeat);
  }

  /** The latest heartbeat of {@code nodeId}. */
  public Optional<HeartbeatRequest> heartbeat(String nodeId) {
    return Optional.ofNullable(heartbeats.get(nodeId));
  }

  /** Latest heartbeat of every node, by node id (a copy). */
  public Map<String, HeartbeatRequest> heartbeats() {
    return Map.copyOf(heartbeats);
  }

  /** The latest leader report of {@code rangeId}. */
  public Optional<LeaderReport> leaderReport(long rangeId) {
    return Optional.ofNullable(leaders.get(rangeId));
  }

  /** True when a replica reported {@code rangeId} dormant after its last leader report. */
  public boolean isDormant(long rangeId) {
    return dormant.containsKey(rangeId);
  }

  /**
   * Notes a leadership transfer the controller completed, so the next tick does not plan it again
   * before the new leader's heartbeat arrives.
   */
  public void leaderMoved(long rangeId, String toNodeId) {
    leaders.computeIfPresent(rangeId, (id, old) -> new LeaderReport(toNodeId,
        old.stats().toBuilder().setLeaderNodeId(toNodeId).build(), old.receivedMillis()));
  }

  /** Drops the stats of ranges not in {@code liveRangeIds} (merged away), keeping the book bounded. */
  public void retainRanges(Set<Long> liveRangeIds) {
    leaders.keySet().retainAll(liveRangeIds);
    dormant.keySet().retainAll(liveRangeIds);
  }

  /** Drops the heartbeats of nodes not in {@code nodeIds}. */
  public void retainNodes(List<String> nodeIds) {
    heartbeats.keySet().retainAll(Set.copyOf(nodeIds));
  }

  /** Drops the leader reports received before {@code cutoffMillis}. */
  public void forgetOlderThan(long cutoffMillis) {
    leaders.values().removeIf(r -> r.receivedMillis() < cutoffMillis);
  }

  /** Forgets everything (this node lost the meta leadership). */
  public void clear() {
    dormant.clear();
    heartbeats.clear();
    leaders.clear();
  }
}
