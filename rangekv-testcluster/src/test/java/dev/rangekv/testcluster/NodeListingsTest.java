package dev.rangekv.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeListingsTest {
  private static ReplicaStatus replica(long id, String start, String end, long generation) {
    RangeDescriptor d = new RangeDescriptor(id, start.isEmpty() ? Key.EMPTY : Key.utf8(start),
        end.isEmpty() ? RangeEnd.INFINITY : RangeEnd.at(Key.utf8(end)), List.of("n1"), generation);
    return ReplicaStatus.newBuilder().setRange(ProtoValues.descriptor(d, n -> "127.0.0.1:1")).build();
  }

  private static List<String> spans(List<RangeDescriptorProto> tiling) {
    return tiling.stream().map(p -> "r" + p.getRangeId() + "@" + p.getGeneration()).toList();
  }

  @Test
  void newestTiling_takesEachRangesNewestGeneration_inKeyOrder() {
    Map<String, List<ReplicaStatus>> byNode = Map.of(
        "a", List.of(replica(1, "", "m", 2), replica(2, "m", "", 1)),
        "b", List.of(replica(2, "m", "", 1), replica(1, "", "", 1)));

    assertThat(spans(NodeListings.newestTiling(byNode))).containsExactly("r1@2", "r2@1");
  }

  @Test
  void newestTiling_dropsALaggingReplicasOlderSpan_thatOverlapsANewerOne() {
    // a merge: r1 took r2's span at generation 3; a lagging node still reports r2
    Map<String, List<ReplicaStatus>> byNode = Map.of(
        "a", List.of(replica(1, "", "", 3)),
        "b", List.of(replica(2, "m", "", 1)));

    assertThat(spans(NodeListings.newestTiling(byNode))).containsExactly("r1@3");
  }

  @Test
  void newestTiling_ofNoAnswers_isEmpty() {
    assertThat(NodeListings.newestTiling(Map.of())).isEmpty();
  }
}
