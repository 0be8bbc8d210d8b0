package dev.rangekv.client.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.WriteId;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WriteIdsPropertyTest {

  @Test
  void lowWater_isTheSmallestIdInFlight_neverAboveOneAWriteStillUses() {
    Property.named("write ids low water vs model").cases(500).sizes(1, 200).check(g -> {
      WriteIds ids = new WriteIds();
      List<WriteId> open = new ArrayList<>();
      long issued = 0;
      for (int i = 0; i < g.size(); i++) {
        if (open.isEmpty() || g.chance(0.55)) {
          WriteId id = ids.next();
          issued++;
          assertThat(id.getRequestId()).isEqualTo(issued);
          assertThat(id.getLowWater()).isLessThanOrEqualTo(id.getRequestId());
          open.add(id);
        } else {
          ids.finish(open.remove(g.nextInt(open.size())));
        }
        long model = open.stream().mapToLong(WriteId::getRequestId).min().orElse(issued + 1);
        assertThat(ids.lowWater()).isEqualTo(model);
        for (WriteId w : open) {
          assertThat(ids.current(w).getLowWater()).as("a retry never claims itself finished")
              .isLessThanOrEqualTo(w.getRequestId());
        }
      }
    });
  }
}
