package dev.rangekv.bench.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeIndex;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Range lookup, one key at a time and in sorted batches, for both index layouts ({@code array}: the
 * sorted array with a long prefix column that {@code RangeMap} uses; {@code tree}: a {@code
 * TreeMap}). Scores are ns per key: the single-key benchmark routes a block of 1,024 random keys per
 * invocation, the batched ones 2,000,000 sorted keys (about 20 per range at 100,000 ranges; the walk
 * streams ~120 MB of key objects, so it is memory-bound) and 16,384 sorted keys (a multi-get that
 * fits in cache, mostly one key per range, so mostly gallops) in one walk each.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-Xms3g"})
@State(Scope.Benchmark)
public class RangeLookupBenchmark {
  private static final int BLOCK = 1024;
  private static final int RANDOM_KEYS = 1 << 20;
  private static final int SORTED_KEYS = 2_000_000;
  private static final int MULTI_GET_KEYS = 16_384;

  @Param({"1000", "100000"})
  int ranges;

  @Param({"U64", "STRING", "TIED_STRING"})
  String keys;

  @Param({"array", "tree"})
  String layout;

  private RangeIndex index;
  private Key[] randomKeys;
  private Key[] sortedKeys;
  private Key[] multiGetKeys;
  private int[] routed;
  private int cursor;

  @Setup(Level.Trial)
  public void setUp() {
    KeySets shape = KeySets.valueOf(keys);
    List<Key> starts = shape.starts(ranges, 42);
    index = layout.equals("array") ? RangeIndex.sortedArray(starts) : RangeIndex.treeMap(starts);
    randomKeys = shape.keys(RANDOM_KEYS, 7);
    sortedKeys = shape.sortedKeys(SORTED_KEYS, 8);
    multiGetKeys = shape.sortedKeys(MULTI_GET_KEYS, 9);
    routed = new int[SORTED_KEYS];
    System.gc(); // compact the setup garbage away before measuring
  }

  /** ns per lookup of a random key (a block of independent lookups, so out-of-order overlap counts). */
  @Benchmark
  @OperationsPerInvocation(BLOCK)
  public int lookup() {
    int sum = 0;
    int c = cursor;
    Key[] ks = randomKeys;
    for (int i = 0; i < BLOCK; i++) {
      sum += index.floorIndex(ks[(c + i) & (RANDOM_KEYS - 1)]);
    }
    cursor = c + BLOCK;
    return sum;
  }

  /** ns per key of routing 2,000,000 sorted keys in one merge-walk. */
  @Benchmark
  @OperationsPerInvocation(SORTED_KEYS)
  public int lookupSorted() {
    index.floorIndices(sortedKeys, routed);
    return routed[SORTED_KEYS - 1];
  }

  /** ns per key of routing a 16,384-key sorted multi-get (cache-resident) in one walk. */
  @Benchmark
  @OperationsPerInvocation(MULTI_GET_KEYS)
  public int lookupSortedMultiGet() {
    index.floorIndices(multiGetKeys, routed);
    return routed[MULTI_GET_KEYS - 1];
  }
}
