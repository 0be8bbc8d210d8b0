package dev.rangekv.core.split;

import static dev.rangekv.core.cluster.ClusterFixtures.k;
import static dev.rangekv.core.cluster.ClusterFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.RangeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SizeSplitPolicyTest {
  private final ControllerConfig config = ControllerConfig.builder().maxBytes(1 << 20).build();
  private final RangeDescriptor r = range(3, 1000, 2000, "n1");

  private RangeStats sized(long bytes, TailWrites tail) {
    return new RangeStats(r, bytes, 10, 0, 0, "n1", List.of(), tail);
  }

  @Test
  void atOrBelowMaxBytes_noSplit() {
    assertThat(SizeSplitPolicy.evaluate(sized(1 << 20, TailWrites.NONE), config))
        .isInstanceOf(SplitDecision.NoSplit.class);
  }

  @Test
  void aboveMaxBytes_asksForTheMidpointThenSplitsThere() {
    SplitDecision d = SizeSplitPolicy.evaluate(sized((1 << 20) + 1, TailWrites.NONE), config);
    assertThat(d).isInstanceOf(SplitDecision.NeedsMidpoint.class);
    SplitDecision done = SizeSplitPolicy.resolve((SplitDecision.NeedsMidpoint) d, r, Optional.of(k(1500)));
    assertThat(done).isInstanceOfSatisfying(SplitDecision.Split.class, s -> {
      assertThat(s.splitKey()).isEqualTo(k(1500));
      assertThat(s.cause()).isEqualTo(SplitCause.SIZE);
      assertThat(s.why().toString()).contains("bytes=1048577").contains("maxBytes=1048576");
    });
  }

  @Test
  void midpointAtTheStartOrOutside_isDeclined() {
    var pending = (SplitDecision.NeedsMidpoint) SizeSplitPolicy.evaluate(sized(2 << 20, TailWrites.NONE), config);
    assertThat(SizeSplitPolicy.resolve(pending, r, Optional.of(k(1000)))).isInstanceOf(SplitDecision.Declined.class);
    assertThat(SizeSplitPolicy.resolve(pending, r, Optional.of(k(2000)))).isInstanceOf(SplitDecision.Declined.class);
    assertThat(SizeSplitPolicy.resolve(pending, r, Optional.empty())).isInstanceOf(SplitDecision.Declined.class);
    RangeDescriptor changed = r.withSpan(r.start(), r.end(), r.generation() + 1);
    assertThat(SizeSplitPolicy.resolve(pending, changed, Optional.of(k(1500))))
        .isInstanceOfSatisfying(SplitDecision.Declined.class, x -> assertThat(x.why().reason()).contains("changed"));
  }

  @Test
  void appendingRange_splitsAfterTheLastWrittenKeyLeavingAnEmptyTail() {
    TailWrites tail = new TailWrites(1000, 990, Optional.of(k(1800)));
    SplitDecision d = SizeSplitPolicy.evaluate(sized(2 << 20, tail), config);
    assertThat(d).isInstanceOfSatisfying(SplitDecision.Split.class, s -> {
      assertThat(s.cause()).isEqualTo(SplitCause.APPEND);
      assertThat(s.splitKey()).isEqualTo(k(1800).successor());
      assertThat(r.contains(s.splitKey())).isTrue();
    });
  }

  @Test
  void mostlyRandomWrites_useTheMidpointEvenWithSomeAppends() {
    TailWrites tail = new TailWrites(1000, 500, Optional.of(k(1800)));
    assertThat(SizeSplitPolicy.evaluate(sized(2 << 20, tail), config)).isInstanceOf(SplitDecision.NeedsMidpoint.class);
  }

  @Test
  void appendPastTheRangeEnd_fallsBackToTheMidpoint() {
    RangeDescriptor last = new RangeDescriptor(4, k(1000), dev.rangekv.core.key.RangeEnd.at(Key.of(new byte[] {0, 0, 0, 0, 0, 0, 7, (byte) 0xD0, 0})),
        List.of("n1"), 1);
    // the successor of k(2000) is k(2000)+0x00, which is the end itself: no room for an empty tail
    RangeStats s = new RangeStats(last, 2 << 20, 10, 0, 0, "n1", List.of(),
        new TailWrites(10, 10, Optional.of(k(2000))));
    assertThat(SizeSplitPolicy.evaluate(s, config)).isInstanceOf(SplitDecision.NeedsMidpoint.class);
  }
}
