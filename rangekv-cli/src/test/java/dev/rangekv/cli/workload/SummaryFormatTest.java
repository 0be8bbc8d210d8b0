package dev.rangekv.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.cli.format.Json;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SummaryFormatTest {
  private static final String PROC_STAT = """
      cpu  4705 356 584 3699 23 10 20 5 0 0
      cpu0 1393 280 284 1845 11 5 9 2 0 0
      intr 114930548 113199788 3 0 5 263 0 4 [... 50 more items]
      """;

  @Test
  void procStat_busyIsEverythingButIdleAndIowait() {
    MachineCpu c = MachineCpu.parse(PROC_STAT);
    assertThat(c.busyTicks()).isEqualTo(4705 + 356 + 584 + 10 + 20 + 5);
    assertThat(c.totalTicks()).isEqualTo(c.busyTicks() + 3699 + 23);
    MachineCpu later = new MachineCpu(c.busyTicks() + 250, c.totalTicks() + 400);
    assertThat(later.busySecondsSince(c)).isEqualTo(2.5);
    assertThat(MachineCpu.parseLoadAverage("12.31 9.80 7.02 3/1024 4242\n")).isEqualTo(12.31);
    assertThatThrownBy(() -> MachineCpu.parse("intr 1 2 3")).hasMessageContaining("no aggregate cpu line");
  }

  private static PhaseResult result() {
    LatencyHistogram reads = new LatencyHistogram();
    LatencyHistogram updates = new LatencyHistogram();
    for (int i = 1; i <= 100; i++) {
      reads.record(i * 100L);
      updates.record(i * 1000L);
    }
    return new PhaseResult("ycsb-a", 32, 45, 10, Map.of(OpKind.READ, reads.snapshot(), OpKind.UPDATE,
        updates.snapshot()), reads.snapshot().plus(updates.snapshot()), Map.of("DEADLINE_EXCEEDED", 2L), 0,
        Optional.of(1.0), Optional.of(0.25), Optional.of(3.5));
  }

  @Test
  void text_saysTheCpuCountsTheWholeMachine() {
    var lines = SummaryFormat.text(result());
    assertThat(lines.get(0)).isEqualTo("== ycsb-a: 200 ops in 10.0 s = 20.0 ops/s (32 threads, after a 45 s warm-up)");
    assertThat(lines).anyMatch(l -> l.trim().startsWith("read") && l.contains("100 ops"));
    assertThat(lines).anyMatch(l -> l.trim().equals("errors 2: DEADLINE_EXCEEDED=2"));
    assertThat(lines.get(lines.size() - 1)).isEqualTo(
        "   cpu 5.000 ms/op (whole machine: every process, from /proc/stat): 1.0 cpu-s over 10.0 s, of which JIT "
            + "compilers 0.3 cpu-s (25%; without them 3.750 ms/op); load average 3.50");
  }

  @Test
  void json_carriesOpsLatencyErrorsAndCpu() {
    String json = Json.write(SummaryFormat.json(result()));
    assertThat(json).startsWith("{\"phase\":\"ycsb-a\",\"threads\":32,\"warmupSeconds\":45,\"seconds\":10,\"ops\":200,"
        + "\"opsPerSecond\":20,\"latencyMs\":{\"p50\":");
    assertThat(json).contains("\"byKind\":{\"read\":{\"ops\":100,", "\"errors\":2,",
        "\"errorsByKind\":{\"DEADLINE_EXCEEDED\":2}", "\"msPerOp\":5,", "\"jitCpuSeconds\":0.2500,",
        "\"msPerOpWithoutJit\":3.7500}", "\"scope\":\"whole machine");
  }

  @Test
  void liveLine_showsRatePercentilesAndErrors() {
    LatencyHistogram h = new LatencyHistogram();
    h.record(1_500);
    h.record(70_000);
    assertThat(SummaryFormat.live("update", 12, true, 0.5, h.snapshot(), 1)).isEqualTo(
        "update      12s warm-up        4.0 ops/s  p50 1.50 ms  p95 70.1 ms  p99 70.1 ms  errors 1");
  }
}
