package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DedupeRecord;
import dev.rangekv.testkit.Property;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DedupeTableTest {

  @Test
  void seenRequest_returnsItsRecordedResult_andNewOnesAreUnseen() {
    CommandResult ok = result(true);
    DedupeRecord r = DedupeTable.add(DedupeRecord.getDefaultInstance(), 5, ok);
    assertThat(DedupeTable.seen(r, 5)).contains(ok);
    assertThat(DedupeTable.seen(r, 6)).isEmpty();
    assertThat(DedupeTable.seen(r, 4)).isEmpty();
  }

  @Test
  void window_remembersTheLatestIds_andRefusesForgottenOnes() {
    Property.named("dedupe window vs model").cases(1000).sizes(1, 200).check(g -> {
      DedupeRecord record = DedupeRecord.getDefaultInstance();
      Map<Long, Boolean> applied = new HashMap<>();
      long next = 1;
      for (int i = 0; i < g.size(); i++) {
        long id = next + g.between(0, 3);
        next = id + 1;
        boolean success = g.nextBoolean();
        record = DedupeTable.add(record, id, result(success));
        applied.put(id, success);
      }
      long newest = next - 1;
      for (Map.Entry<Long, Boolean> e : applied.entrySet()) {
        var seen = DedupeTable.seen(record, e.getKey());
        assertThat(seen).as("applied ids are never seen as new").isPresent();
        if (newest - e.getKey() < DedupeTable.WINDOW) {
          assertThat(seen.get().getBatch().getSucceeded()).isEqualTo(e.getValue());
        }
      }
      assertThat(record.getEntriesCount()).isLessThanOrEqualTo(DedupeTable.WINDOW);
      assertThat(DedupeTable.seen(record, newest + 1)).isEmpty();
    });
  }

  private static CommandResult result(boolean succeeded) {
    return CommandResult.newBuilder().setBatch(BatchResponse.newBuilder().setSucceeded(succeeded)).build();
  }

}
