package dev.rangekv.proto.convert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.FigureProto;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventProtosTest {

  @Test
  void event_roundTripsThroughProto_fieldForField() {
    Event e = Event.of("split", List.of(2L, 9L), Explanation.of("size above max-bytes").with("bytes", 7e7)
        .with("leftShare", 0.4).build(), "r2 split at \"k\" -> r2, r9", 1234).logged(17, 99);
    EventProto p = EventProtos.proto(e);
    assertThat(p).isEqualTo(EventProto.newBuilder().setSeq(17).setAtMillis(1234).setKind("split")
        .addRangeIds(2).addRangeIds(9).setReason("size above max-bytes").setDetail("r2 split at \"k\" -> r2, r9")
        .addFigures(FigureProto.newBuilder().setName("bytes").setValue(7e7))
        .addFigures(FigureProto.newBuilder().setName("leftShare").setValue(0.4)).build());
    assertThat(EventProtos.event(p)).isEqualTo(e);
  }

  @Test
  void emptyProto_isAnEventWithEmptyTexts_andBackTheSameBytes() {
    EventProto empty = EventProto.getDefaultInstance();
    assertThat(EventProtos.proto(EventProtos.event(empty)).toByteString()).isEqualTo(empty.toByteString());
  }
}
