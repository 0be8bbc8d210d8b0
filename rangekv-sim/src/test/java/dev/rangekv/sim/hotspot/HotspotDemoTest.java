package dev.rangekv.sim.hotspot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HotspotDemoTest {

  @Test
  void report_countsEveryWrite_andShowsTheSpread() {
    HotspotDemo.Report r = HotspotDemo.run(new HotspotDemo.Config(64, 1_000_000, 100_000));
    assertThat(r.loads()).hasSize(64);
    assertThat(r.loads().stream().mapToLong(HotspotDemo.RangeLoad::bigEndianWrites).sum()).isEqualTo(100_000);
    assertThat(r.loads().stream().mapToLong(HotspotDemo.RangeLoad::bucketedWrites).sum()).isEqualTo(100_000);
    assertThat(r.rangesHitBigEndian()).isEqualTo(1);
    assertThat(r.maxShareBigEndian()).isEqualTo(1.0);
    assertThat(r.rangesHitBucketed()).isEqualTo(64);
    assertThat(r.maxShareBucketed()).isLessThan(2.0 / 64);
  }
}
