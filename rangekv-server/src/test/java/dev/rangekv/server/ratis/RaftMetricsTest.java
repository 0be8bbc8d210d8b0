package dev.rangekv.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.server.consensus.EngineTimers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.junit.jupiter.api.Test;

/** The Ratis bridge against real Ratis registries (the JVM-wide default implementation) of made-up groups. */
class RaftMetricsTest {
  private static MetricRegistryInfo server(String member) {
    return new MetricRegistryInfo(member, "ratis", "server", "test");
  }

  private static void proposals(MetricRegistryInfo info, int n) {
    // as Ratis does: create() is reference-counted, so an existing registry is looked up first
    RatisMetricRegistry r = MetricRegistries.global().get(info).orElseGet(() -> MetricRegistries.global().create(info));
    for (int i = 0; i < n; i++) {
      r.timer("clientWriteRequest").time().stop();
    }
  }

  @Test
  void counts_sumTheNodesGroupsOnly_andStayMonotonicWhenAGroupCloses() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RaftMetrics raft = new RaftMetrics("bridge-n1", meters, 0);
    MetricRegistryInfo a = server("bridge-n1@group-A");
    MetricRegistryInfo b = server("bridge-n1@group-B");
    MetricRegistryInfo other = server("bridge-n2@group-A"); // another node of the same JVM
    try {
      proposals(a, 3);
      proposals(b, 2);
      proposals(other, 7);
      assertThat(meters.get("rangekv.raft.proposals").functionCounter().count()).isEqualTo(5);
      assertThat(meters.get("rangekv.raft.proposal").tag("quantile", "0.5").gauge().value()).isNotNegative();

      MetricRegistries.global().remove(b); // the range moved away: its registry goes, its past events stay
      proposals(a, 1);
      assertThat(meters.get("rangekv.raft.proposals").functionCounter().count()).isEqualTo(6);
      proposals(b, 4); // the range came back: a fresh registry counting from zero
      assertThat(meters.get("rangekv.raft.proposals").functionCounter().count()).isEqualTo(10);
      // one series per quantile, whatever the number of groups
      assertThat(meters.find("rangekv.raft.proposal").gauges()).hasSize(RaftMetrics.QUANTILES.length);
    } finally {
      List.of(a, b, other).forEach(i -> MetricRegistries.global().remove(i));
    }
  }

  @Test
  void anEnginesOwnTimers_countBesideTheRatisGroups_inTheSameMeters() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    long[] proposals = {0};
    EngineTimers engine = kind -> kind == EngineTimers.Kind.PROPOSAL
        ? new EngineTimers.Reading(proposals[0], new long[] {4_000_000_000L, 4_000_000_000L, 4_000_000_000L})
        : new EngineTimers.Reading(2, new long[] {1_000_000L, 3_000_000L});
    RaftMetrics raft = new RaftMetrics("engine-n1", meters, 0, engine);
    MetricRegistryInfo meta = server("engine-n1@meta");
    try {
      proposals(meta, 1); // the meta range's group, still on Ratis
      proposals[0] = 3;
      assertThat(meters.get("rangekv.raft.proposals").functionCounter().count()).isEqualTo(4);
      // the engine's values (4 s) outnumber the meta group's one quick proposal
      assertThat(meters.get("rangekv.raft.proposal").tag("quantile", "0.5").gauge().value()).isEqualTo(4.0);
      proposals[0] = 5;
      assertThat(meters.get("rangekv.raft.proposals").functionCounter().count()).isEqualTo(6);
      assertThat(meters.get("rangekv.raft.log.syncs").functionCounter().count()).isEqualTo(2);
      assertThat(meters.get("rangekv.raft.log.sync").tag("quantile", "0.99").gauge().value()).isEqualTo(0.003);
      assertThat(meters.get("rangekv.raft.follower.appends").functionCounter().count()).isZero();
    } finally {
      MetricRegistries.global().remove(meta);
    }
  }

  @Test
  void quantiles_mergeEveryGroupsValues_inSeconds() {
    assertThat(RaftMetrics.quantiles(List.of(new long[] {1_000_000_000L, 3_000_000_000L}, new long[] {2_000_000_000L},
        new long[] {4_000_000_000L}))).containsExactly(2.0, 4.0, 4.0);
    assertThat(RaftMetrics.quantiles(List.of(new long[0]))).containsExactly(0.0, 0.0, 0.0);
  }
}
