package dev.rangekv.bench.replica;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.ClientWrites;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaHost;
import dev.rangekv.server.split.SplitApplier.SplitOutcome;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import dev.rangekv.storage.StoreOptions;
import dev.rangekv.storage.WriteBatchBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One Raft entry of grouped client writes applied by {@link RangeReplica#apply} into a real store, as a
 * replica applies it on each of three nodes: per write the range checks, the dedupe lookup and record, the
 * put, and the entry's write batch with its applied index (not synced, as at apply). One client (as the
 * workload's router) with 32 writes in flight: its low-water mark trails its newest id by 32 of its
 * ids. {@code stride}: the client's ids on this range step by it, 1 as with one range and 8 as with its
 * writes spread over 8 ranges (so the client's floor moves every {@code 64 / stride} of the range's
 * writes). {@code writes}: writes per entry (about 16 at one range, 2 to 3 at eight, BENCHMARKS.md).
 * {@code buildOnly}: making the entry's command alone, the floor to subtract.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ApplyCostBenchmark {
  private static final long RANGE = 1;
  private static final int KEYS = 20_000;

  @Param({"1", "8"})
  public int stride;

  @Param({"3", "16"})
  public int writes;

  private Path dir;
  private NodeStore store;
  private RangeReplica replica;
  private final SplittableRandom random = new SplittableRandom(1);
  private final ByteString client = ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  private final ByteString value = ByteString.copyFrom(new byte[100]);
  private long nextId = 1;
  private long index = 1;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("apply-cost");
    store = NodeStore.open(dir, StoreOptions.defaults());
    RangeDescriptor d = new RangeDescriptor(RANGE, Key.EMPTY, RangeEnd.INFINITY, List.of("n1"), 1);
    try (WriteBatchBuilder b = store.newBatch()) {
      b.putRangeState(new RangeLocalState(d, 1, 1));
      store.write(b);
    }
    replica = new RangeReplica(RANGE, store, new Host());
    replica.load();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private RangeCommand entry() {
    ClientWrites.Builder w = ClientWrites.newBuilder();
    RangeHeader header = RangeHeader.newBuilder().setRangeId(RANGE).setGeneration(1).build();
    for (int i = 0; i < writes; i++) {
      long id = nextId;
      nextId += stride;
      ByteString key = ByteString.copyFromUtf8(String.format("user%010d", random.nextInt(KEYS)));
      w.addWrites(BatchRequest.newBuilder().setHeader(header)
          .setWriteId(WriteId.newBuilder().setClientId(client).setRequestId(id).setLowWater(Math.max(1, id - 32L * stride)))
          .addMutations(Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(key).setValue(value))));
    }
    return RangeCommand.newBuilder().setWrites(w).build();
  }

  @Benchmark
  public RangeCommand buildOnly() {
    return entry();
  }

  @Benchmark
  public CommandResult apply() {
    return replica.apply(Optional.of(entry()), 1, ++index);
  }

  /** A host with nothing around the replica. */
  private static final class Host implements ReplicaHost {
    @Override
    public void register(RangeReplica replica) {}

    @Override
    public void unregister(RangeReplica replica) {}

    @Override
    public void splitApplied(SplitOutcome outcome) {}

    @Override
    public List<RangeDescriptorProto> movedDescriptors(RangeDescriptor current) {
      return List.of();
    }
  }
}
