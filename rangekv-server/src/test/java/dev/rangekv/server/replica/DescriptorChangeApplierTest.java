package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DedupeEntry;
import dev.rangekv.proto.replica.DedupeRecord;
import org.junit.jupiter.api.Test;

class DescriptorChangeApplierTest {
  private static DedupeRecord record(long floor, long... ids) {
    DedupeRecord.Builder b = DedupeRecord.newBuilder().setFloor(floor);
    for (long id : ids) {
      b.addEntries(DedupeEntry.newBuilder().setRequestId(id).setResult(CommandResult.getDefaultInstance()));
    }
    return b.build();
  }

  @Test
  void mergedDedupeRecords_rememberRequestsSeenByEitherRange() {
    DedupeRecord u = DescriptorChangeApplier.union(record(3, 5, 7), record(4, 6, 7));
    assertThat(u.getFloor()).isEqualTo(4);
    assertThat(u.getEntriesList()).extracting(DedupeEntry::getRequestId).containsExactly(5L, 6L, 7L);
    assertThat(DedupeTable.seen(u, 6)).isPresent();
    assertThat(DedupeTable.seen(u, 8)).isEmpty();
  }

  @Test
  void mergedDedupeRecords_keepTheWindow() {
    long[] a = new long[DedupeTable.WINDOW];
    long[] b = new long[DedupeTable.WINDOW];
    for (int i = 0; i < DedupeTable.WINDOW; i++) {
      a[i] = 2L * i + 1;
      b[i] = 2L * i + 2;
    }
    DedupeRecord u = DescriptorChangeApplier.union(record(0, a), record(0, b));
    assertThat(u.getEntriesCount()).isEqualTo(DedupeTable.WINDOW);
    assertThat(u.getFloor()).isEqualTo(DedupeTable.WINDOW);
    assertThat(DedupeTable.seen(u, 1).orElseThrow().getError().hasDuplicateTooOld()).isTrue();
  }
}
