package dev.rangekv.bench.storage;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * CPU time per operation of the benchmark thread, printed after each iteration. On a shared machine wall
 * time per op mostly measures how long the thread waited for a core; thread CPU time is far less
 * sensitive to that, so it is the fairer figure to set beside db_bench's user+sys time. Background
 * RocksDB threads (flush, compaction) are not included.
 */
@State(Scope.Thread)
public class CpuMeter {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private long startNanos;
  private long ops;

  @Setup(Level.Iteration)
  public void start() {
    ops = 0;
    startNanos = THREADS.getCurrentThreadCpuTime();
  }

  void count() {
    ops++;
  }

  @TearDown(Level.Iteration)
  public void report() {
    long cpu = THREADS.getCurrentThreadCpuTime() - startNanos;
    if (ops > 0) {
      System.out.printf("cpu-time: %.3f us/op over %d ops%n", cpu / 1000.0 / ops, ops);
    }
  }
}
