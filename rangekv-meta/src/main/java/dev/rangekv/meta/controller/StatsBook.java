package dev.rangekv.meta.controller;

import dev.rangekv.core.cluster.RangeReport;
import dev.rangekv.core.cluster.RangeStats;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meta leader's in-memory book of heartbeats: the latest lines ({@link RangeReport}) of each node
 * and, for each range, the stats reported by the node leading it (highest generation wins; at equal
 * generation the later report wins, so a new leader replaces the old one).
 *
 * <p>Not replicated: a new meta leader starts empty and fills up within one heartbeat interval.
 * Thread-safe: heartbeats arrive on gRPC threads while the controller reads on its own. Holds core
 * values only: the heartbeat service converts the wire lines before recording them.
 */
public final class StatsBook {
  private final Map<String, List<RangeReport>> heartbeats = new ConcurrentHashMap<>();
  private final Map<Long, LeaderReport> leaders = new ConcurrentHashMap<>();
  /** Ranges a replica reported dormant since their last leader report, with the reported generation. */
  private final Map<Long, Long> dormant = new ConcurrentHashMap<>();

  /**
   * One range's latest stats as its leader reported them.
   *
   * @param nodeId the reporting (leading) node
   * @param report what it reported (a {@link RangeReport.Role#LEADER} line)
   * @param receivedMillis when the heartbeat arrived, on the meta leader's clock
   */
  public record LeaderReport(String nodeId, RangeReport report, long receivedMillis) {
    public LeaderReport {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(report, "report");
    }

    /** The reported stats, against the reporter's descriptor. */
    public RangeStats stats() {
      return report.stats();
    }

    public long generation() {
      return report.generation();
    }
  }

  /** Records a heartbeat of {@code nodeId}: its lines, and the stats of every range it leads. */
  public void record(String nodeId, List<RangeReport> ranges, long nowMillis) {
    if (nodeId.isEmpty()) {
      throw new IllegalArgumentException("heartbeat without a node id");
    }
    heartbeats.put(nodeId, List.copyOf(ranges));
    for (RangeReport r : ranges) {
      if (r.role() == RangeReport.Role.DORMANT) {
        // closed groups: no leader to measure, so the planner leaves the range alone until it wakes
        dormant.put(r.rangeId(), r.generation());
        leaders.computeIfPresent(r.rangeId(), (id, old) -> old.generation() <= r.generation() ? null : old);
        continue;
      }
      if (r.role() != RangeReport.Role.LEADER) {
        continue;
      }
      dormant.remove(r.rangeId());
      LeaderReport fresh = new LeaderReport(nodeId, r, nowMillis);
      leaders.merge(r.rangeId(), fresh, (old, neu) -> neu.generation() >= old.generation() ? neu : old);
    }
  }

  /** Records a node that registered but has not heartbeated yet (keeps an existing heartbeat). */
  public void recordRegistration(String nodeId) {
    heartbeats.putIfAbsent(nodeId, List.of());
  }

  /** The lines of the latest heartbeat of {@code nodeId} (none for a node that only registered). */
  public Optional<List<RangeReport>> heartbeat(String nodeId) {
    return Optional.ofNullable(heartbeats.get(nodeId));
  }

  /** The lines of every node's latest heartbeat, by node id (a copy). */
  public Map<String, List<RangeReport>> heartbeats() {
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
    leaders.computeIfPresent(rangeId, (id, old) -> new LeaderReport(toNodeId, old.report().withLeader(toNodeId),
        old.receivedMillis()));
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
