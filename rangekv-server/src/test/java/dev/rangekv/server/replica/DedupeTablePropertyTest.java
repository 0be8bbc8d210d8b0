package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreOptions;
import dev.rangekv.storage.WriteBatchBuilder;
import dev.rangekv.testkit.Property;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DedupeTablePropertyTest {
  @TempDir
  Path dir;
  private NodeStore store;
  private long nextRange = 1;

  @BeforeEach
  void open() {
    store = NodeStore.open(dir, StoreOptions.defaults());
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** A client as the model sees it: what it applied, what is in flight, and the low-water mark it sends. */
  private static final class Client {
    final ByteString id;
    final Map<Long, Boolean> applied = new HashMap<>();
    final List<Long> inFlight = new ArrayList<>();
    long nextId = 1;
    long lastRecordedLowWater;

    Client(int n) {
      this.id = ByteString.copyFrom(new byte[] {(byte) n, 7, 7, 7});
    }

    /** Every id below it has finished (the model never retries those). */
    long lowWater() {
      return inFlight.stream().mapToLong(Long::longValue).min().orElse(nextId);
    }

    WriteId writeId(long requestId) {
      return WriteId.newBuilder().setClientId(id).setRequestId(requestId).setLowWater(lowWater()).build();
    }
  }

  @Test
  void retriesOfInFlightWrites_getTheirRecordedResult_andFinishedOnesAreForgotten() {
    Property.named("dedupe table vs model").cases(60).sizes(1, 600).check(g -> {
      long range = nextRange++;
      List<Client> clients = List.of(new Client(1), new Client(2), new Client(3));
      EntryBatchRun run = new EntryBatchRun(store, range);
      for (int step = 0; step < g.size(); step++) {
        Client c = g.pick(clients);
        if (!c.inFlight.isEmpty() && g.chance(0.3)) {
          // a retry of an in-flight write: applied at most once, with the first outcome
          long id = g.pick(c.inFlight);
          Optional<CommandResult> seen = DedupeTable.seen(run.view(), c.writeId(id));
          if (c.applied.containsKey(id)) {
            assertThat(seen).as("retry of applied id %d", id).isPresent();
            assertThat(seen.get().getBatch().getSucceeded()).isEqualTo(c.applied.get(id));
          } else {
            assertThat(seen).as("id %d never applied", id).isEmpty();
          }
        } else if (!c.inFlight.isEmpty() && g.chance(0.4)) {
          c.inFlight.remove(g.nextInt(c.inFlight.size())); // the client saw its answer: finished
        } else {
          long id = c.nextId++;
          c.inFlight.add(id);
          WriteId wid = c.writeId(id);
          assertThat(DedupeTable.seen(run.view(), wid)).as("a new id is unseen").isEmpty();
          if (g.chance(0.9)) { // else the attempt was lost before it applied
            boolean ok = g.nextBoolean();
            DedupeTable.record(run.view(), wid, result(ok));
            c.lastRecordedLowWater = wid.getLowWater();
            c.applied.put(id, ok);
          }
        }
        if (g.chance(0.2)) {
          run.commit(); // the next writes go in another entry
        }
      }
      run.commit();
      for (Client c : clients) {
        long floor = DedupeTable.floor(run.view(), c.id);
        assertThat(floor).as("the floor never passes an in-flight id").isLessThanOrEqualTo(c.lowWater());
        assertThat(floor).as("the floor follows the low-water mark of the last write")
            .isGreaterThan(c.lastRecordedLowWater - DedupeTable.TRIM_STEP);
        long records = store.localScan(range, DedupeTable.clientPart(c.id) + "/").size();
        assertThat(records).as("records kept: ids at or above the floor only")
            .isLessThanOrEqualTo(c.nextId - floor);
        for (Map.Entry<Long, Boolean> e : c.applied.entrySet()) {
          Optional<CommandResult> seen = DedupeTable.seen(run.view(), c.writeId(e.getKey()));
          assertThat(seen).as("an applied id is never new again: %d", e.getKey()).isPresent();
        }
      }
    });
  }

  @Test
  void aWriteInFlight_isRememberedPastTheDefaultWindow_whileTheClientsMarkHoldsIt() {
    long range = nextRange++;
    EntryBatchRun run = new EntryBatchRun(store, range);
    ByteString client = ByteString.copyFromUtf8("busy");
    // id 1 is in flight (its first attempt's outcome unknown) while 3,072 newer writes apply
    long n = DedupeTable.DEFAULT_WINDOW * 3;
    recordAll(run, client, 2, n, 1);
    assertThat(DedupeTable.floor(run.view(), client)).as("the floor never passes an in-flight id").isLessThanOrEqualTo(1);
    WriteId retry = WriteId.newBuilder().setClientId(client).setRequestId(1).setLowWater(1).build();
    assertThat(DedupeTable.seen(run.view(), retry)).as("the retry is applied, not refused as too old").isEmpty();
  }

  @Test
  void aClientWithoutLowWater_keepsABoundedWindow() {
    long range = nextRange++;
    EntryBatchRun run = new EntryBatchRun(store, range);
    ByteString client = ByteString.copyFromUtf8("legacy");
    long n = DedupeTable.DEFAULT_WINDOW * 3;
    recordAll(run, client, 1, n, 0);
    long records = store.localScan(range, DedupeTable.clientPart(client) + "/").size();
    assertThat(records).isBetween(DedupeTable.DEFAULT_WINDOW, DedupeTable.DEFAULT_WINDOW + DedupeTable.TRIM_STEP);
    WriteId old = WriteId.newBuilder().setClientId(client).setRequestId(1).build();
    assertThat(DedupeTable.seen(run.view(), old).orElseThrow().getError().hasDuplicateTooOld()).isTrue();
    WriteId recent = WriteId.newBuilder().setClientId(client).setRequestId(n - 5).build();
    assertThat(DedupeTable.seen(run.view(), recent).orElseThrow().hasBatch()).isTrue();
  }

  @Test
  void aMerge_carriesTheRightRangesRecords_andTheHigherFloor() {
    long left = nextRange++;
    long right = nextRange++;
    ByteString client = ByteString.copyFromUtf8("c");
    EntryBatchRun l = new EntryBatchRun(store, left);
    EntryBatchRun r = new EntryBatchRun(store, right);
    for (long id = 1; id <= 200; id++) {
      EntryBatchRun side = id % 2 == 0 ? l : r;
      long lowWater = id % 2 == 0 ? 10 : 150;
      DedupeTable.record(side.view(),
          WriteId.newBuilder().setClientId(client).setRequestId(id).setLowWater(lowWater).build(), result(id % 3 == 0));
    }
    l.commit();
    r.commit();
    try (WriteBatchBuilder batch = store.newBatch()) {
      DescriptorChangeApplier.mergeDedupe(store, left, right, batch);
      store.write(batch);
    }
    EntryBatchRun merged = new EntryBatchRun(store, left);
    // the right range trimmed in steps of TRIM_STEP ids while its low-water mark rose to 150: floor 129
    assertThat(DedupeTable.floor(merged.view(), client)).isEqualTo(129);
    for (long id = 129; id <= 200; id++) {
      CommandResult seen = DedupeTable.seen(merged.view(),
          WriteId.newBuilder().setClientId(client).setRequestId(id).build()).orElseThrow();
      assertThat(seen.getBatch().getSucceeded()).as("id %d", id).isEqualTo(id % 3 == 0);
    }
    assertThat(DedupeTable.seen(merged.view(), WriteId.newBuilder().setClientId(client).setRequestId(21).build())
        .orElseThrow().getError().hasDuplicateTooOld()).isTrue();
  }

  @Test
  void aRetriedRefusedCheck_getsTheValueItSawFirst() {
    EntryBatchRun run = new EntryBatchRun(store, nextRange++);
    WriteId id = WriteId.newBuilder().setClientId(ByteString.copyFromUtf8("c")).setRequestId(1).build();
    CommandResult refused = CommandResult.newBuilder().setBatch(BatchResponse.newBuilder().setSucceeded(false)
        .setFailedCheckIndex(0).setCurrentFound(true).setCurrentValue(ByteString.copyFromUtf8("s1-7"))).build();
    DedupeTable.record(run.view(), id, refused);
    run.commit();
    // the retry of a compare-and-set whose first attempt applied but lost its reply: the client reports
    // this value as the key's current one, so it must be the value the check read, not an empty one
    assertThat(DedupeTable.seen(run.view(), id)).contains(refused);
  }

  private static CommandResult result(boolean succeeded) {
    return CommandResult.newBuilder().setBatch(BatchResponse.newBuilder().setSucceeded(succeeded)).build();
  }

  /** Entries of one range: writes go into the open batch until it is committed to the store. */
  private static final class EntryBatchRun {
    private final NodeStore store;
    private final long range;
    private WriteBatchBuilder batch;
    private EntryBatch view;

    EntryBatchRun(NodeStore store, long range) {
      this.store = store;
      this.range = range;
    }

    EntryBatch view() {
      if (view == null) {
        batch = store.newBatch();
        view = new EntryBatch(store, range, batch);
      }
      return view;
    }

    void commit() {
      if (batch != null) {
        store.write(batch);
        batch.close();
        batch = null;
        view = null;
      }
    }
  }

  /**
   * Records ids {@code from..to} of {@code client} as applied, each carrying {@code lowWater} (0: the client
   * sends no mark), committing every 100 ids.
   */
  private static void recordAll(EntryBatchRun run, ByteString client, long from, long to, long lowWater) {
    for (long id = from; id <= to; id++) {
      DedupeTable.record(run.view(), WriteId.newBuilder().setClientId(client).setRequestId(id).setLowWater(lowWater)
          .build(), result(true));
      if (id % 100 == 0) {
        run.commit();
      }
    }
    run.commit();
  }
}
