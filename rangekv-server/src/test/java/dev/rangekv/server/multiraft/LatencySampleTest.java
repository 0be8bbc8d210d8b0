package dev.rangekv.server.multiraft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.server.consensus.EngineTimers;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatencySampleTest {
  @Test
  void aReading_countsEveryEvent_andKeepsTheLatestValuesOnly() {
    LatencySample s = new LatencySample();
    assertThat(s.read().count()).isZero();
    assertThat(s.read().recentNanos()).isEmpty();
    s.record(5);
    s.record(7);
    assertThat(s.read().count()).isEqualTo(2);
    assertThat(s.read().recentNanos()).containsExactlyInAnyOrder(5, 7);

    int total = LatencySample.SIZE + 10;
    for (int i = 0; i < total; i++) {
      s.record(1_000 + i);
    }
    EngineTimers.Reading r = s.read();
    assertThat(r.count()).isEqualTo(total + 2);
    assertThat(r.recentNanos()).hasSize(LatencySample.SIZE)
        .containsExactlyInAnyOrder(LongStream.range(1_000 + total - LatencySample.SIZE, 1_000 + total).toArray());
  }

  @Test
  void merged_addsTheCounts_andPoolsTheValues() {
    LatencySample a = new LatencySample();
    LatencySample b = new LatencySample();
    a.record(1);
    b.record(2);
    b.record(3);
    EngineTimers.Reading r = LatencySample.merged(List.of(a, b));
    assertThat(r.count()).isEqualTo(3);
    assertThat(r.recentNanos()).containsExactlyInAnyOrder(1, 2, 3);
  }
}
