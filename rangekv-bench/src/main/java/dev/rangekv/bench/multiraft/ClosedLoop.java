package dev.rangekv.bench.multiraft;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Closed-loop writers: each thread puts a 100-byte value under its own next key ({@code tNN-SEQ}) into
 * a uniformly chosen group and waits for the acknowledgement. A warm-up phase, then a measured phase
 * around which the caller takes its own readings.
 */
final class ClosedLoop {
  /** The measured phase: writes and their latencies (sorted), and every key acknowledged overall. */
  record Result(long ops, long[] sortedLatencyNanos, long measuredNanos, Set<String> acknowledged) {
    double opsPerSecond() {
      return ops * 1e9 / measuredNanos;
    }

    double percentileMillis(double p) {
      if (sortedLatencyNanos.length == 0) {
        return Double.NaN;
      }
      int i = (int) Math.min(sortedLatencyNanos.length - 1, Math.floor(p * sortedLatencyNanos.length));
      return sortedLatencyNanos[i] / 1e6;
    }
  }

  private ClosedLoop() {}

  static String key(int thread, long seq) {
    return String.format("t%02d-%09d", thread, seq);
  }

  static Result run(SpikeCluster cluster, int threads, Duration warmup, Duration measure, Runnable atStart,
      Runnable atEnd) throws InterruptedException {
    AtomicInteger phase = new AtomicInteger(); // 0 warm-up, 1 measured, 2 stop
    long[] acked = new long[threads];
    long[][] latencies = new long[threads][];
    int[] counts = new int[threads];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] writers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int me = t;
      latencies[t] = new long[1 << 16];
      writers[t] = new Thread(() -> {
        byte[] value = new byte[100];
        ThreadLocalRandom.current().nextBytes(value);
        try {
          while (true) {
            int p = phase.get();
            if (p == 2) {
              return;
            }
            int group = ThreadLocalRandom.current().nextInt(cluster.groups());
            long start = System.nanoTime();
            cluster.write(group, key(me, acked[me]).getBytes(StandardCharsets.US_ASCII), value);
            long took = System.nanoTime() - start;
            acked[me]++;
            if (p == 1) {
              if (counts[me] == latencies[me].length) {
                latencies[me] = Arrays.copyOf(latencies[me], counts[me] * 2);
              }
              latencies[me][counts[me]++] = took;
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "writer-" + t);
      writers[t].start();
    }
    Thread.sleep(warmup.toMillis());
    atStart.run();
    long begin = System.nanoTime();
    phase.set(1);
    Thread.sleep(measure.toMillis());
    phase.set(2);
    long measured = System.nanoTime() - begin;
    atEnd.run();
    for (Thread w : writers) {
      w.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a writer failed", failure.get());
    }
    long ops = 0;
    for (int c : counts) {
      ops += c;
    }
    long[] all = new long[(int) ops];
    int at = 0;
    for (int t = 0; t < threads; t++) {
      System.arraycopy(latencies[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    Set<String> keys = new HashSet<>();
    for (int t = 0; t < threads; t++) {
      for (long s = 0; s < acked[t]; s++) {
        keys.add(key(t, s));
      }
    }
    return new Result(ops, all, measured, keys);
  }
}
