package dev.rangekv.meta.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.RangeReport;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatsBookTest {
  /** One heartbeat line of {@code rangeId} (replicas n1..n3, the whole key space). */
  static List<RangeReport> hb(long rangeId, long generation, boolean leader, long bytes) {
    RangeDescriptor d = new RangeDescriptor(rangeId, Key.EMPTY, RangeEnd.INFINITY, List.of("n1", "n2", "n3"),
        generation);
    return List.of(new RangeReport(RangeStats.of(d, bytes, 0, ""),
        leader ? RangeReport.Role.LEADER : RangeReport.Role.FOLLOWER, 0));
  }

  @Test
  void leaderStats_highestGenerationWins_laterReportWinsAtEqualGeneration_followersIgnored() {
    StatsBook book = new StatsBook();
    book.record("n1", hb(7, 3, true, 100), 1);
    book.record("n2", hb(7, 2, true, 999), 2);   // stale leader
    book.record("n3", hb(7, 4, false, 555), 3);  // follower
    assertThat(book.leaderReport(7).orElseThrow().nodeId()).isEqualTo("n1");
    book.record("n2", hb(7, 3, true, 200), 4);   // new leader, same generation
    assertThat(book.leaderReport(7).orElseThrow().stats().bytes()).isEqualTo(200);
    assertThat(book.heartbeats()).containsOnlyKeys("n1", "n2", "n3");

    book.leaderMoved(7, "n3");
    assertThat(book.leaderReport(7).orElseThrow().nodeId()).isEqualTo("n3");
    book.retainRanges(Set.of(8L));
    assertThat(book.leaderReport(7)).isEmpty();
  }

  @Test
  void aDormantLine_dropsTheLeaderReportItIsNoOlderThan_andALeaderLineWakesTheRange() {
    StatsBook book = new StatsBook();
    book.record("n1", hb(7, 3, true, 100), 1);
    RangeReport asleep = RangeReport.of(hb(7, 3, false, 0).get(0).range(), RangeReport.Role.DORMANT, "");
    book.record("n2", List.of(asleep), 2);
    assertThat(book.isDormant(7)).isTrue();
    assertThat(book.leaderReport(7)).isEmpty();
    book.record("n1", hb(7, 3, true, 100), 3);
    assertThat(book.isDormant(7)).isFalse();
    assertThat(book.leaderReport(7)).isPresent();
  }
}
