package dev.rangekv.server.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.HeartbeatRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The per-range rows against a real Prometheus registry, with heartbeats replacing them while it is scraped. */
class RangeLoadGaugesTest {
  private static HeartbeatRequest heartbeat(int ranges, double qps) {
    HeartbeatRequest.Builder b = HeartbeatRequest.newBuilder();
    for (int i = 1; i <= ranges; i++) {
      b.addRanges(RangeStatsProto.newBuilder()
          .setRange(RangeDescriptorProto.newBuilder().setRangeId(i))
          .setLeader(true)
          .setWriteQps(qps + i)
          .setWriteBytesPerSecond(qps * i));
    }
    return b.build();
  }

  @Test
  void aScrapeShowsEachLedRangeOnce_whileHeartbeatsReplaceTheRows() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RangeLoadGauges gauges = new RangeLoadGauges(registry, RangeLoadGauges.DEFAULT_CAP);
    gauges.update(heartbeat(100, 1));
    AtomicBoolean stop = new AtomicBoolean();
    Thread heartbeats = new Thread(() -> {
      for (int n = 0; !stop.get(); n++) {
        gauges.update(heartbeat(100, n));
      }
    });
    heartbeats.start();
    try {
      for (int scrape = 0; scrape < 500; scrape++) {
        String text = gauges.whileRowsHoldStill(registry::scrape);
        Set<String> series = new HashSet<>();
        Arrays.stream(text.split("\n"))
            .filter(line -> line.startsWith("rangekv_range_"))
            .map(line -> line.substring(0, line.lastIndexOf(' ')))
            .forEach(s -> assertThat(series.add(s)).as("series %s printed twice", s).isTrue());
        // and none missing: a row removed for its replacement is not skipped either
        for (int range = 1; range <= 100; range++) {
          assertThat(series).contains("rangekv_range_write_bytes_per_second{range=\"" + range + "\"}");
        }
      }
    } finally {
      stop.set(true);
      heartbeats.join();
      registry.close();
    }
  }
}
