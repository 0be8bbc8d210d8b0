package dev.rangekv.meta.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.meta.HeartbeatRequest;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatsBookTest {
  static HeartbeatRequest hb(String node, long rangeId, long generation, boolean leader, long bytes) {
    return HeartbeatRequest.newBuilder().setNode(NodeRecord.newBuilder().setNodeId(node))
        .addRanges(RangeStatsProto.newBuilder().setLeader(leader).setBytes(bytes)
            .setRange(RangeDescriptorProto.newBuilder().setRangeId(rangeId).setGeneration(generation)))
        .build();
  }

  @Test
  void leaderStats_highestGenerationWins_laterReportWinsAtEqualGeneration_followersIgnored() {
    StatsBook book = new StatsBook();
    book.record(hb("n1", 7, 3, true, 100), 1);
    book.record(hb("n2", 7, 2, true, 999), 2);   // stale leader
    book.record(hb("n3", 7, 4, false, 555), 3);  // follower
    assertThat(book.leaderReport(7).orElseThrow().nodeId()).isEqualTo("n1");
    book.record(hb("n2", 7, 3, true, 200), 4);   // new leader, same generation
    assertThat(book.leaderReport(7).orElseThrow().stats().getBytes()).isEqualTo(200);
    assertThat(book.heartbeats()).containsOnlyKeys("n1", "n2", "n3");

    book.leaderMoved(7, "n3");
    assertThat(book.leaderReport(7).orElseThrow().nodeId()).isEqualTo("n3");
    book.retainRanges(Set.of(8L));
    assertThat(book.leaderReport(7)).isEmpty();
  }
}
