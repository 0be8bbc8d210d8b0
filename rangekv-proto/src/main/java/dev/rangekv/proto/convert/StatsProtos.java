package dev.rangekv.proto.convert;

import dev.rangekv.core.cluster.RangeReport;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WeightedKeyProto;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Heartbeat lines between core's {@link RangeReport} and {@link RangeStatsProto}. Stateless.
 *
 * <p>Reading is lenient with numbers and strict with the descriptor: a node's out-of-contract numbers
 * (negative or overflowed counts, NaN or infinite rates, non-positive sample weights, appends above
 * writes) are clamped or dropped, so one bad report does not fail a whole controller tick; a descriptor
 * that is no range (empty or inverted span) is refused. Writing is lossless for what reading keeps,
 * except each replica's address: {@link #proto} takes them from the caller.
 */
public final class StatsProtos {
  private StatsProtos() {}

  /**
   * The core form of one heartbeat line.
   *
   * @throws IllegalArgumentException when its descriptor is not a range
   */
  public static RangeReport report(RangeStatsProto p) {
    RangeDescriptor range = ProtoValues.descriptor(p.getRange());
    // a leader on its way out of a replica change may lead a range its descriptor no longer lists it in
    String leader = range.replicas().contains(p.getLeaderNodeId()) ? p.getLeaderNodeId() : "";
    RangeReport.Role role = p.getDormant() ? RangeReport.Role.DORMANT
        : p.getLeader() ? RangeReport.Role.LEADER : RangeReport.Role.FOLLOWER;
    List<WeightedKey> samples = new ArrayList<>(p.getSampledKeysCount());
    for (WeightedKeyProto w : p.getSampledKeysList()) {
      if (w.getWeight() > 0 && !Double.isInfinite(w.getWeight())) {
        samples.add(new WeightedKey(ProtoValues.key(w.getKey()), w.getWeight()));
      }
    }
    TailWrites tail = TailWrites.NONE;
    if (p.getTailWrites() > 0 && !p.getMaxWrittenKey().isEmpty()) {
      Key max = ProtoValues.key(p.getMaxWrittenKey());
      long appends = Math.max(0, Math.min(p.getTailAppends(), p.getTailWrites()));
      tail = new TailWrites(p.getTailWrites(), appends, Optional.of(max));
    }
    RangeStats stats = new RangeStats(range, Math.max(0, p.getBytes()), Math.max(0, p.getKeys()),
        rate(p.getReadQps()), rate(p.getWriteQps()), leader, samples, tail);
    return new RangeReport(stats, role, rate(p.getWriteBytesPerSecond()));
  }

  /** Every line of a heartbeat, in order; fails as {@link #report} does on the first bad one. */
  public static List<RangeReport> reports(List<RangeStatsProto> ps) {
    return ps.stream().map(StatsProtos::report).toList();
  }

  /** The wire form of {@code r}, each replica's client address looked up by node id ("" when unknown). */
  public static RangeStatsProto proto(RangeReport r, Function<String, String> addressOf) {
    RangeStats s = r.stats();
    RangeStatsProto.Builder b = RangeStatsProto.newBuilder()
        .setRange(ProtoValues.descriptor(s.range(), addressOf))
        .setLeader(r.role() == RangeReport.Role.LEADER)
        .setDormant(r.role() == RangeReport.Role.DORMANT)
        .setLeaderNodeId(s.leaderNodeId())
        .setBytes(s.bytes()).setKeys(s.keys())
        .setReadQps(s.readQps()).setWriteQps(s.writeQps())
        .setWriteBytesPerSecond(r.writeBytesPerSecond())
        .setTailWrites(s.tail().writes()).setTailAppends(s.tail().appends());
    s.tail().maxWrittenKey().ifPresent(k -> b.setMaxWrittenKey(ProtoValues.bytes(k)));
    for (WeightedKey k : s.sampledKeys()) {
      b.addSampledKeys(WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k.key())).setWeight(k.weight()));
    }
    return b.build();
  }

  private static double rate(double perSecond) {
    return perSecond >= 0 && !Double.isInfinite(perSecond) ? perSecond : 0;
  }
}
