package dev.rangekv.core.cluster;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;

/** Builders for policy tests: ranges cut at numeric keys, stats, nodes. */
public final class ClusterFixtures {
  private ClusterFixtures() {}

  /** The 8-byte big-endian key of {@code i}. */
  public static Key k(long i) {
    return KeyCodec.bigEndian(i);
  }

  /** Range {@code [k(lo), k(hi))}; lo 0 means the empty key, hi negative means +infinity. */
  public static RangeDescriptor range(long id, long lo, long hi, String... replicas) {
    return new RangeDescriptor(id, lo == 0 ? Key.EMPTY : k(lo), hi < 0 ? RangeEnd.INFINITY : RangeEnd.at(k(hi)),
        List.of(replicas), 1);
  }

  /** {@code n} ranges tiling the keyspace at k(1000), k(2000), ..., ids 1..n, all on {@code replicas}. */
  public static List<RangeDescriptor> tiled(int n, String... replicas) {
    List<RangeDescriptor> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(range(i + 1, i * 1000L, i == n - 1 ? -1 : (i + 1) * 1000L, replicas));
    }
    return out;
  }

  public static RangeStats stats(RangeDescriptor r, long bytes, double qps) {
    return RangeStats.of(r, bytes, qps, r.replicas().isEmpty() ? "" : r.replicas().get(0));
  }

  public static NodeStats node(String id, String zone, long heartbeat) {
    return new NodeStats(id, zone, 0, heartbeat);
  }

  public static List<NodeStats> nodes(long heartbeat, String... ids) {
    List<NodeStats> out = new ArrayList<>();
    for (String id : ids) {
      out.add(NodeStats.of(id, heartbeat));
    }
    return out;
  }

  /** {@code count} samples of key k(i) with weight 1 each. */
  public static List<WeightedKey> samples(long i, int count) {
    List<WeightedKey> out = new ArrayList<>();
    for (int j = 0; j < count; j++) {
      out.add(new WeightedKey(k(i), 1));
    }
    return out;
  }
}
