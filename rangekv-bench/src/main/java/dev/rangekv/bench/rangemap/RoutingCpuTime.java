package dev.rangekv.bench.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeIndex;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A companion to {@link RangeLookupBenchmark} for shared, overloaded machines: the same workloads
 * timed by the thread's CPU time instead of wall time, so time spent descheduled by other processes
 * does not count (their cache pollution still does). Prints the median of 7 rounds after warm-up.
 * Run: {@code java -cp rangekv-bench/target/benchmarks.jar dev.rangekv.bench.rangemap.RoutingCpuTime}.
 */
public final class RoutingCpuTime {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int RANDOM_KEYS = 1 << 20;
  private static final int SORTED_KEYS = 2_000_000;
  private static final int ROUNDS = 7;

  private RoutingCpuTime() {}

  public static void main(String[] args) {
    System.out.println("workload      keys         ranges  layout  median ns/key (cpu time)");
    for (KeySets shape : KeySets.values()) {
      for (int ranges : new int[] {1000, 100_000}) {
        List<Key> starts = shape.starts(ranges, 42);
        Key[] random = shape.keys(RANDOM_KEYS, 7);
        Key[] sorted = shape.sortedKeys(SORTED_KEYS, 8);
        int[] out = new int[SORTED_KEYS];
        for (String layout : new String[] {"array", "tree"}) {
          RangeIndex index = layout.equals("array") ? RangeIndex.sortedArray(starts) : RangeIndex.treeMap(starts);
          report("lookup", shape, ranges, layout, measure(() -> lookupAll(index, random), RANDOM_KEYS));
          report("lookupSorted", shape, ranges, layout, measure(() -> {
            index.floorIndices(sorted, out);
            return out[SORTED_KEYS - 1];
          }, SORTED_KEYS));
        }
      }
    }
  }

  private static int lookupAll(RangeIndex index, Key[] keys) {
    int sum = 0;
    for (Key k : keys) {
      sum += index.floorIndex(k);
    }
    return sum;
  }

  private interface Work {
    int run();
  }

  private static double measure(Work work, int keysPerRun) {
    int sink = 0;
    for (int i = 0; i < 5; i++) {
      sink += work.run(); // warm-up: let the JIT compile the loop
    }
    double[] nsPerKey = new double[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      long t0 = THREADS.getCurrentThreadCpuTime();
      sink += work.run();
      nsPerKey[r] = (THREADS.getCurrentThreadCpuTime() - t0) / (double) keysPerRun;
    }
    if (sink == 42) {
      System.out.print(""); // keeps the results alive so the JIT cannot drop the work
    }
    Arrays.sort(nsPerKey);
    return nsPerKey[ROUNDS / 2];
  }

  private static void report(String workload, KeySets shape, int ranges, String layout, double ns) {
    System.out.printf(Locale.ROOT, "%-13s %-12s %7d  %-6s  %.1f%n", workload, shape, ranges, layout, ns);
  }
}
