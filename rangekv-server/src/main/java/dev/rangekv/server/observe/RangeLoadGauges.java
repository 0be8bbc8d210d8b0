package dev.rangekv.server.observe;

import dev.rangekv.proto.HeartbeatRequest;
import dev.rangekv.proto.RangeStatsProto;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.Comparator;
import java.util.List;

/**
 * Per-range read and write QPS, bytes written per second, bytes and keys of the ranges this node leads, as its last heartbeat
 * measured them. Cardinality is bounded: only led ranges, and of them the {@code cap} busiest (by QPS,
 * then bytes). Ranges no longer led or no longer among the busiest lose their series at the next update.
 * Thread-safe.
 */
public final class RangeLoadGauges {
  /** At most this many ranges get their own series. */
  public static final int DEFAULT_CAP = 100;

  private final int cap;
  private final MultiGauge readQps;
  private final MultiGauge writeQps;
  private final MultiGauge writeBytes;
  private final MultiGauge bytes;
  private final MultiGauge keys;

  RangeLoadGauges(MeterRegistry registry, int cap) {
    this.cap = cap;
    this.readQps = MultiGauge.builder("rangekv.range.read.qps").description("reads per second of a led range")
        .register(registry);
    this.writeQps = MultiGauge.builder("rangekv.range.write.qps").description("writes per second of a led range")
        .register(registry);
    this.writeBytes = MultiGauge.builder("rangekv.range.write.bytes.per.second")
        .description("bytes written per second to a led range (keys and values its writes carried)").register(registry);
    this.bytes = MultiGauge.builder("rangekv.range.bytes").description("approximate bytes of a led range")
        .baseUnit("bytes").register(registry);
    this.keys = MultiGauge.builder("rangekv.range.keys").description("approximate keys of a led range")
        .register(registry);
  }

  /** Replaces the series with the led ranges of {@code heartbeat}. */
  public synchronized void update(HeartbeatRequest heartbeat) {
    List<RangeStatsProto> led = heartbeat.getRangesList().stream()
        .filter(RangeStatsProto::getLeader)
        .sorted(Comparator.comparingDouble((RangeStatsProto r) -> r.getReadQps() + r.getWriteQps())
            .thenComparingLong(RangeStatsProto::getBytes).reversed())
        .limit(cap)
        .toList();
    readQps.register(rows(led, RangeStatsProto::getReadQps), true);
    writeQps.register(rows(led, RangeStatsProto::getWriteQps), true);
    writeBytes.register(rows(led, RangeStatsProto::getWriteBytesPerSecond), true);
    bytes.register(rows(led, r -> (double) r.getBytes()), true);
    keys.register(rows(led, r -> (double) r.getKeys()), true);
  }

  /** Runs {@code read} while no {@link #update} replaces the rows (so a reader never sees a row twice). */
  synchronized <T> T whileRowsHoldStill(java.util.function.Supplier<T> read) {
    return read.get();
  }

  private static List<MultiGauge.Row<?>> rows(List<RangeStatsProto> led,
                                              java.util.function.ToDoubleFunction<RangeStatsProto> f) {
    return led.stream()
        .<MultiGauge.Row<?>>map(r -> MultiGauge.Row.of(Tags.of("range", Long.toString(r.getRange().getRangeId())),
            f.applyAsDouble(r)))
        .toList();
  }
}
