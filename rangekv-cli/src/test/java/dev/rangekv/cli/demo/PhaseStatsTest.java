package dev.rangekv.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.key.KeyText;
import java.io.PrintWriter;
import java.time.Instant;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PhaseStatsTest {
  @Test
  void ticks_giveWritesPerSecond_rangesPerTick_andTheHottestShare() {
    PhaseStats s = new PhaseStats(Phase.BY_ORDER);
    s.tick(1.0, Map.of(1L, 90L, 2L, 10L));
    s.tick(1.0, Map.of(1L, 25L, 2L, 25L, 3L, 25L, 4L, 25L));
    assertThat(s.writesPerSecond()).isEqualTo(100.0);
    assertThat(s.rangesWrittenPerTick(1.0)).isEqualTo(3.0);
    assertThat(s.hottestShare()).isEqualTo((90 + 25) / 200.0);
  }

  @Test
  void alerts_areListedByKind_orNone() {
    PhaseStats s = new PhaseStats(Phase.BY_TIME);
    assertThat(s.alerts()).isEqualTo("none");
    s.event("split");
    s.event("alert-monotonic");
    s.event("alert-monotonic");
    s.event("alert-hot-key");
    assertThat(s.alerts()).isEqualTo("alert-hot-key x1, alert-monotonic x2");
    assertThat(s.count("split")).isEqualTo(1);
  }

  @Test
  void phaseKeys_sortByTimeFirst_orByOrderFirst_inSeparateTables() {
    assertThat(Phase.BY_TIME.key(2, "o1", 0)).isGreaterThan(Phase.BY_TIME.key(1, "o9", 0));
    assertThat(Phase.BY_ORDER.key(2, "o1", 0)).isLessThan(Phase.BY_ORDER.key(1, "o9", 0));
    assertThat(KeyCodec.decode(Phase.BY_ORDER.key(5, "o1", 7)))
        .containsExactly("events_by_order", "o1", Instant.ofEpochMilli(5), 7L);
    assertThat(Phase.BY_TIME.mentionedIn("prefix /events_by_time+\"\\x03\"")).isTrue();
    assertThat(Phase.BY_ORDER.mentionedIn("prefix /events_by_time+\"\\x03\"")).isFalse();
    Key bucketed = Phase.BUCKETED.key(5, "o1", 7);
    assertThat(KeyCodec.decode(Phase.BUCKETS.strip(bucketed)))
        .containsExactly("events_bucketed", Instant.ofEpochMilli(5), "o1", 7L);
    assertThat(KeyText.render(bucketed)).matches("#[0-9a-f]{2}/events_bucketed/1970-01-01T00:00:00.005Z/o1/7");
  }

  @Test
  void summary_comparesThePhasesSideBySide() {
    PhaseStats a = new PhaseStats(Phase.BY_TIME);
    a.tick(2.0, Map.of(9L, 200L));
    a.event("alert-monotonic");
    PhaseStats b = new PhaseStats(Phase.BY_ORDER);
    b.tick(2.0, Map.of(1L, 100L, 2L, 100L, 3L, 100L, 4L, 100L));
    b.event("move");
    StringWriter w = new StringWriter();
    PhaseStats c = new PhaseStats(Phase.BUCKETED);
    c.tick(2.0, Map.of(5L, 300L, 6L, 300L));
    LastMinute q = new LastMinute(Phase.BUCKETED, 500, 500, 8, 40, true);
    Summary.print(new PrintWriter(w), List.of(a, b, c), List.of(q), new Summary.Setup(4, 256, 2.0, 2));
    String cell = "%-36s  ";
    assertThat(w.toString())
        .contains(String.format("%-25s  " + cell + cell + "300 (3.0x phase 1)", "writes/s (acknowledged)", "100",
            "200 (2.0x phase 1)"))
        .contains(String.format("%-25s  " + cell + cell + "50%% of writes", "hottest range's share", "100% of writes",
            "25% of writes"))
        .contains(String.format("%-25s  " + cell + cell + "0 / 0", "moves / leader transfers", "0 / 0", "1 / 0"))
        .contains(String.format("%-25s  " + cell + cell + "none", "alerts about its keys", "alert-monotonic x1", "none"))
        .contains(String.format("%-25s  " + cell + cell + "500 read by 8 scans, 40 ms", "last minute of events",
            "not asked", "not asked"))
        .contains("CPU was not the bound: 256 writes in flight were");
  }

  @Test
  void summary_saysTheCpuWasTheBound_whenPhaseOneAlreadyUsedTheMachine() {
    PhaseStats a = new PhaseStats(Phase.BY_TIME);
    a.tick(2.0, Map.of(9L, 2000L));
    a.cpu(0.9, 2.0);
    PhaseStats b = new PhaseStats(Phase.BY_ORDER);
    b.tick(2.0, Map.of(1L, 500L, 2L, 500L));
    b.cpu(0.95, 2.0);
    StringWriter w = new StringWriter();
    Summary.print(new PrintWriter(w), List.of(a, b), List.of(), new Summary.Setup(4, 256, 2.0, 2));
    // 0.9 of 2 cores for 1,000 writes/s: 1.8 ms of CPU per write; 0.95 of 2 cores for 500/s: 3.8 ms
    assertThat(w.toString())
        .contains(String.format("%-25s  %-36s  %s", "CPU per write", "1.80 ms", "3.80 ms"))
        .contains("What limits it: this machine's CPU, in every phase. Phase 1 already kept 90% of its 2 cores busy")
        .contains("(1.80 ms in phase 1, 3.80 ms in phase 2:")
        .contains("so phase 2 wrote 0.5x as fast");
  }
}
