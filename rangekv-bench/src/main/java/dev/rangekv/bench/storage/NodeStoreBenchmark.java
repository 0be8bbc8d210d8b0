package dev.rangekv.bench.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.storage.KeyValue;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreOptions;
import dev.rangekv.storage.WriteBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * Put (one-entry batch, WAL on, no fsync), get and 10-key forward scan through {@link NodeStore} on a
 * store of {@code keys} entries with 16-byte keys and 100-byte incompressible values, the same sizes as
 * the {@code db_bench} comparison in BENCHMARKS.md.
 *
 * <p>Run {@code get|scan10} before {@code put} (as db_bench runs readrandom and seekrandom before
 * overwrite): puts overwrite existing keys with other random values. The store is loaded once (sequential fill, flush, full compaction: like {@code db_bench
 * fillseq,compact}) into {@code dir} and reused by later forks while a marker file says it is complete.
 * Keys are the 8-byte big-endian index followed by 8 zero bytes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class NodeStoreBenchmark {
  static final int KEY_BYTES = 16;
  static final int VALUE_BYTES = 100;

  @Param("1000000")
  public int keys;

  @Param("")
  public String dir;

  private NodeStore store;
  private final SplittableRandom random = new SplittableRandom(2024);
  /** Random (incompressible, like db_bench --compression_ratio=1.0) values for puts. */
  private final byte[][] values = new byte[1024][VALUE_BYTES];

  static Key key(long i) {
    return Key.of(ByteBuffer.allocate(KEY_BYTES).putLong(i).array());
  }

  @Setup(Level.Trial)
  public void open() throws IOException {
    Path path = dir.isEmpty() ? Path.of(System.getProperty("java.io.tmpdir"), "rangekv-bench-storage-" + keys)
        : Path.of(dir);
    Path marker = path.resolve("LOADED");
    for (byte[] v : values) {
      random.nextBytes(v);
    }
    store = NodeStore.open(path, StoreOptions.defaults());
    if (!Files.exists(marker)) {
      load();
      Files.writeString(marker, Integer.toString(keys));
    }
  }

  private void load() {
    SplittableRandom r = new SplittableRandom(1);
    byte[] v = new byte[VALUE_BYTES];
    WriteBatchBuilder b = store.newBatch();
    for (long i = 0; i < keys; i++) {
      r.nextBytes(v);
      b.put(key(i), v.clone());
      if (b.count() == 1000) {
        store.write(b);
        b.close();
        b = store.newBatch();
      }
    }
    store.write(b);
    b.close();
    store.flush();
    store.compactSpan(Key.EMPTY, RangeEnd.INFINITY);
  }

  @TearDown(Level.Trial)
  public void close() {
    store.close();
  }

  @Benchmark
  public Optional<byte[]> get(CpuMeter cpu) {
    cpu.count();
    return store.get(key(random.nextInt(keys)));
  }

  @Benchmark
  public List<KeyValue> scan10(CpuMeter cpu) {
    cpu.count();
    return store.scan(key(random.nextInt(keys)), RangeEnd.INFINITY, 10, false);
  }

  @Benchmark
  public long put(CpuMeter cpu) {
    cpu.count();
    try (WriteBatchBuilder b = store.newBatch()) {
      b.put(key(random.nextInt(keys)), values[random.nextInt(values.length)]);
      store.write(b);
      return b.count();
    }
  }
}
