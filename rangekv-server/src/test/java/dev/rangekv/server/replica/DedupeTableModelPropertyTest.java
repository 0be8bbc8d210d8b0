package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.BatchResponse;
import dev.rangekv.proto.DuplicateTooOld;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreOptions;
import dev.rangekv.storage.WriteBatchBuilder;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dedupe table held in memory ({@link RecentWriteIds}) against a brute-force model of the table as
 * stored: every answer of {@code seen} and, after every entry, every stored dedupe field, byte for byte,
 * through entries, lost entries (a failed apply), restarts, evictions and merges.
 */
class DedupeTableModelPropertyTest {
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

  /** The stored table, brute force: per client its records by id (unsigned, as their names sort) and floor. */
  private static final class Model {
    final Map<ByteString, TreeMap<Long, CommandResult>> records = new HashMap<>();
    final Map<ByteString, Long> floors = new HashMap<>();

    Model copy() {
      Model m = new Model();
      records.forEach((c, r) -> m.records.put(c, new TreeMap<>(r)));
      m.floors.putAll(floors);
      return m;
    }

    TreeMap<Long, CommandResult> of(ByteString client) {
      return records.computeIfAbsent(client, c -> new TreeMap<>(Long::compareUnsigned));
    }

    Optional<CommandResult> seen(WriteId id) {
      CommandResult r = of(id.getClientId()).get(id.getRequestId());
      if (r != null) {
        return Optional.of(r);
      }
      if (id.getRequestId() < floors.getOrDefault(id.getClientId(), 0L)) {
        return Optional.of(CommandResult.newBuilder().setError(RangeKvError.newBuilder()
            .setDuplicateTooOld(DuplicateTooOld.newBuilder().setRequestId(id.getRequestId()))
            .setMessage("request " + id.getRequestId() + " is older than the dedupe window; its outcome is unknown"))
            .build());
      }
      return Optional.empty();
    }

    void record(WriteId id, CommandResult result) {
      ByteString c = id.getClientId();
      of(c).put(id.getRequestId(), result);
      long window = id.getLowWater() > 0 ? DedupeTable.MARKED_WINDOW : DedupeTable.DEFAULT_WINDOW;
      long lowWater = Math.min(id.getRequestId(), Math.max(id.getLowWater(), id.getRequestId() - window));
      long floor = floors.getOrDefault(c, 0L);
      if (lowWater - floor >= DedupeTable.TRIM_STEP) {
        of(c).keySet().removeIf(r -> Long.compareUnsigned(floor, r) <= 0 && Long.compareUnsigned(r, lowWater) < 0);
        floors.put(c, lowWater);
      }
    }

    /** A merge: the right range's records this one lacks, and per client the higher floor. */
    void mergeFrom(Model right) {
      right.records.forEach((c, r) -> r.forEach((id, res) -> of(c).putIfAbsent(id, res)));
      right.floors.forEach((c, f) -> floors.merge(c, f, Math::max));
    }

    Map<String, ByteString> fields() {
      Map<String, ByteString> out = new TreeMap<>();
      records.forEach((c, r) -> r.forEach((id, res) ->
          out.put(DedupeTable.clientPart(c) + "/" + HexFormat.of().toHexDigits(id), res.toByteString())));
      floors.forEach((c, f) ->
          out.put(DedupeTable.clientPart(c) + ".floor", ByteString.copyFrom(ByteBuffer.allocate(8).putLong(f).array())));
      return out;
    }
  }

  /** One range's entries: the open batch, the range's held table, and the model as of the last commit. */
  private final class RangeRun {
    final long range = nextRange++;
    RecentWriteIds held;
    WriteBatchBuilder batch;
    EntryBatch view;
    Model model = new Model();
    Model committed = new Model();

    RangeRun(RecentWriteIds held) {
      this.held = held;
    }

    EntryBatch view() {
      if (view == null) {
        batch = store.newBatch();
        view = new EntryBatch(store, range, batch, held);
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
      committed = model.copy();
      assertThat(stored()).as("stored dedupe fields of range %d", range).isEqualTo(model.fields());
    }

    /** The entry's batch is lost before it is written, as when an apply throws: the replica drops its table. */
    void lose() {
      if (batch != null) {
        batch.close();
        batch = null;
        view = null;
      }
      model = committed.copy();
      held.invalidate();
    }

    Map<String, ByteString> stored() {
      Map<String, ByteString> out = new TreeMap<>();
      store.localScan(range, DedupeTable.PREFIX).forEach(e -> out.put(e.getKey(), ByteString.copyFrom(e.getValue())));
      return out;
    }
  }

  /** A client: its next id, and the ids it may still retry (ids it counts as in flight). */
  private static final class Client {
    final ByteString id;
    long next;
    final List<Long> inFlight = new ArrayList<>();

    Client(ByteString id, long first) {
      this.id = id;
      this.next = first;
    }
  }

  @Test
  void theHeldTable_answersAndStoresExactlyAsTheStoredTable() {
    Property.named("held dedupe table vs stored model").cases(40).sizes(50, 1200).check(g -> {
      boolean tight = g.chance(0.5); // small bounds: clients are evicted and loaded again all the time
      RangeRun run = new RangeRun(tight ? new RecentWriteIds(2, 40) : new RecentWriteIds());
      List<Client> clients = new ArrayList<>();
      for (int i = 0; i < 2 + g.nextInt(5); i++) {
        // one client's ids cross the sign bit: their names sort unsigned, the floor compares signed
        long first = i == 0 && g.chance(0.3) ? Long.MAX_VALUE - 300 : 1;
        clients.add(new Client(ByteString.copyFrom(new byte[] {(byte) i, 1, (byte) (i * 7)}), first));
      }
      for (int step = 0; step < g.size(); step++) {
        Client c = g.pick(clients);
        int op = g.nextInt(100);
        if (op < 60) {
          write(g, run, c, c.next++, true);
        } else if (op < 80 && !c.inFlight.isEmpty()) {
          write(g, run, c, g.pick(c.inFlight), false); // a retry
        } else if (op < 85 && c.next > 2) {
          write(g, run, c, c.next - 1 - g.nextInt((int) Math.min(3000, c.next - 1)), false); // an old id
        } else if (op < 90 && !c.inFlight.isEmpty()) {
          c.inFlight.remove(g.nextInt(c.inFlight.size()));
        } else if (op < 95) {
          run.commit();
        } else if (op < 97) {
          run.lose();
        } else if (op < 98) {
          run.commit();
          run.held = tight ? new RecentWriteIds(2, 40) : new RecentWriteIds(); // a restart
        } else if (op < 99) {
          run.commit();
          mergeIn(g, run, clients);
        } else {
          run.commit();
          run.held.invalidate();
        }
      }
      run.commit();
    });
  }

  private static void write(Gen g, RangeRun run, Client c, long requestId, boolean fresh) {
    long lowWater = switch (g.nextInt(4)) {
      case 0 -> 0; // no mark: the default window
      case 1 -> c.inFlight.stream().mapToLong(Long::longValue).min().orElse(c.next);
      default -> Math.max(0, requestId - g.nextInt(300));
    };
    WriteId id = WriteId.newBuilder().setClientId(c.id).setRequestId(requestId).setLowWater(lowWater).build();
    Optional<CommandResult> expected = run.model.seen(id);
    assertThat(DedupeTable.seen(run.view(), id)).as("seen %s", id).isEqualTo(expected);
    if (expected.isEmpty() && g.chance(0.9)) {
      CommandResult result = CommandResult.newBuilder().setBatch(BatchResponse.newBuilder()
          .setSucceeded(g.nextBoolean()).setFailedCheckIndex(g.nextInt(3) - 1)).build();
      DedupeTable.record(run.view(), id, result);
      run.model.record(id, result);
    }
    if (fresh) {
      c.inFlight.add(requestId);
    }
  }

  /** Another range with some of the same clients' records merges into {@code left} (its own entry). */
  private void mergeIn(Gen g, RangeRun left, List<Client> clients) {
    RangeRun right = new RangeRun(new RecentWriteIds());
    for (int i = g.nextInt(300); i > 0; i--) {
      Client c = g.pick(clients);
      write(g, right, c, c.next++, true);
    }
    right.commit();
    try (WriteBatchBuilder batch = store.newBatch()) {
      DescriptorChangeApplier.mergeDedupe(store, left.range, right.range, batch);
      store.write(batch);
    }
    left.held.invalidate(); // as the replica does after any entry that is not a client write
    left.model.mergeFrom(right.model);
    left.commit();
  }
}
