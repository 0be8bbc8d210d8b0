package dev.rangekv.core.cluster;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Objects;

/**
 * One range's stats for one interval, as its leader reports them in a heartbeat.
 *
 * @param range the descriptor the stats belong to (a policy decision names its id and generation)
 * @param bytes approximate on-disk size of the range's data
 * @param keys approximate number of keys
 * @param readQps reads per second over the interval
 * @param writeQps writes per second over the interval
 * @param leaderNodeId the node holding the leader replica; empty when unknown, else one of the replicas
 * @param sampledKeys request keys sampled in the interval with their (estimated) load
 * @param tail the append signal of the interval, {@link TailWrites#NONE} when not reported
 */
public record RangeStats(
    RangeDescriptor range,
    long bytes,
    long keys,
    double readQps,
    double writeQps,
    String leaderNodeId,
    List<WeightedKey> sampledKeys,
    TailWrites tail) {

  public RangeStats {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(leaderNodeId, "leaderNodeId");
    Objects.requireNonNull(tail, "tail");
    sampledKeys = List.copyOf(sampledKeys);
    if (bytes < 0 || keys < 0) {
      throw new IllegalArgumentException("negative size: bytes=" + bytes + " keys=" + keys);
    }
    if (!(readQps >= 0) || !(writeQps >= 0) || Double.isInfinite(readQps) || Double.isInfinite(writeQps)) {
      throw new IllegalArgumentException("qps must be finite and >= 0: read=" + readQps + " write=" + writeQps);
    }
    if (!leaderNodeId.isEmpty() && !range.replicas().contains(leaderNodeId)) {
      throw new IllegalArgumentException("leader " + leaderNodeId + " is not a replica of " + range);
    }
  }

  /**
   * Stats without key count, samples or append signal, {@code qps} split evenly between reads and
   * writes: enough for size, merge and rebalance decisions.
   */
  public static RangeStats of(RangeDescriptor range, long bytes, double qps, String leaderNodeId) {
    return new RangeStats(range, bytes, 0, qps / 2, qps / 2, leaderNodeId, List.of(), TailWrites.NONE);
  }

  public long rangeId() {
    return range.rangeId();
  }

  /** Reads plus writes per second. */
  public double qps() {
    return readQps + writeQps;
  }

  public RangeStats withRange(RangeDescriptor newRange) {
    String leader = newRange.replicas().contains(leaderNodeId) ? leaderNodeId : "";
    return new RangeStats(newRange, bytes, keys, readQps, writeQps, leader, sampledKeys, tail);
  }

  public RangeStats withLeader(String newLeader) {
    return new RangeStats(range, bytes, keys, readQps, writeQps, newLeader, sampledKeys, tail);
  }
}
