package dev.rangekv.bench.partition;

import dev.rangekv.sim.partition.Hash64;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Cost of one 64-bit hash of a short key ({@code user:123456}) for each hash the partitioners offer. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HashBenchmark {
  @Param({"xxh64", "blake2b64", "md5"})
  public String hash;

  private Hash64 h;
  private byte[] key;

  @Setup
  public void setUp() {
    h = Hash64.named(hash);
    key = "user:123456".getBytes(StandardCharsets.UTF_8);
  }

  @Benchmark
  public long hashKey() {
    return h.hash(key);
  }
}
