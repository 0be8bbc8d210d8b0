package dev.rangekv.proto.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.rangekv.core.cluster.RangeReport;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.WeightedKeyProto;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatsProtosTest {
  static final Map<String, String> ADDRESSES = Map.of("n1", "h:1", "n2", "h:2");

  static RangeDescriptorProto range(long id, String start, String end, long generation) {
    return RangeDescriptorProto.newBuilder().setRangeId(id).setStart(ByteString.copyFromUtf8(start))
        .setEnd(ByteString.copyFromUtf8(end)).setGeneration(generation)
        .addReplicas(ReplicaProto.newBuilder().setNodeId("n1").setAddress("h:1"))
        .addReplicas(ReplicaProto.newBuilder().setNodeId("n2").setAddress("h:2")).build();
  }

  @Test
  void leaderLine_roundTripsThroughCore_toTheSameBytes() {
    RangeStatsProto p = RangeStatsProto.newBuilder().setRange(range(7, "a", "m", 3)).setLeader(true)
        .setLeaderNodeId("n1").setBytes(4096).setKeys(12).setReadQps(2.5).setWriteQps(1.5)
        .setWriteBytesPerSecond(300)
        .addSampledKeys(WeightedKeyProto.newBuilder().setKey(ByteString.copyFromUtf8("c")).setWeight(3))
        .setTailWrites(10).setTailAppends(4).setMaxWrittenKey(ByteString.copyFromUtf8("k")).build();
    RangeReport r = StatsProtos.report(p);
    assertThat(r.role()).isEqualTo(RangeReport.Role.LEADER);
    assertThat(r.generation()).isEqualTo(3);
    assertThat(r.stats().bytes()).isEqualTo(4096);
    assertThat(r.stats().tail().appends()).isEqualTo(4);
    assertThat(StatsProtos.proto(r, ADDRESSES::get).toByteString()).isEqualTo(p.toByteString());
  }

  @Test
  void followerAndDormantLines_roundTripToTheSameBytes() {
    RangeStatsProto follower = RangeStatsProto.newBuilder().setRange(range(7, "a", "m", 3)).setLeaderNodeId("n2")
        .build();
    RangeStatsProto dormant = RangeStatsProto.newBuilder().setRange(range(8, "m", "z", 1)).setDormant(true).build();
    assertThat(StatsProtos.report(follower).role()).isEqualTo(RangeReport.Role.FOLLOWER);
    assertThat(StatsProtos.report(dormant).role()).isEqualTo(RangeReport.Role.DORMANT);
    assertThat(StatsProtos.proto(StatsProtos.report(follower), ADDRESSES::get)).isEqualTo(follower);
    assertThat(StatsProtos.proto(StatsProtos.report(dormant), ADDRESSES::get)).isEqualTo(dormant);
  }

  @Test
  void outOfContractNumbers_areClampedOrDropped() {
    RangeStatsProto p = RangeStatsProto.newBuilder().setRange(range(7, "a", "m", 3)).setLeader(true)
        .setLeaderNodeId("n9").setBytes(-1).setKeys(-5).setReadQps(Double.NaN).setWriteQps(-2)
        .setWriteBytesPerSecond(Double.POSITIVE_INFINITY)
        .addSampledKeys(WeightedKeyProto.newBuilder().setKey(ByteString.copyFromUtf8("c")).setWeight(-1))
        .addSampledKeys(WeightedKeyProto.newBuilder().setKey(ByteString.copyFromUtf8("d")).setWeight(Double.NaN))
        .setTailWrites(3).setTailAppends(9).setMaxWrittenKey(ByteString.copyFromUtf8("k")).build();
    RangeReport r = StatsProtos.report(p);
    assertThat(r.stats().bytes()).isZero();
    assertThat(r.stats().keys()).isZero();
    assertThat(r.stats().qps()).isZero();
    assertThat(r.writeBytesPerSecond()).isZero();
    assertThat(r.stats().sampledKeys()).isEmpty();
    assertThat(r.stats().tail().appends()).isEqualTo(3); // at most the writes
    assertThat(r.stats().leaderNodeId()).isEmpty(); // n9 is not one of the replicas
  }

  @Test
  void aLineWhoseDescriptorIsNoRange_isRefused() {
    RangeStatsProto inverted = RangeStatsProto.newBuilder().setRange(range(7, "m", "a", 3)).build();
    assertThatThrownBy(() -> StatsProtos.report(inverted)).isInstanceOf(IllegalArgumentException.class);
  }
}
