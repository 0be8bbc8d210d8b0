package dev.rangekv.server.multiraft;

import dev.rangekv.server.consensus.EngineTimers;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A count of timed events and the latest {@value #SIZE} of their values, recorded lock-free from any
 * thread (a stripe, the syncer, a proposal's completion) and read at scrape time. A reading taken while
 * others record may mix a slot's old and new value: it is a recent-latency view, not an exact one.
 */
final class LatencySample {
  static final int SIZE = 1024;
  private final AtomicLongArray ring = new AtomicLongArray(SIZE);
  private final AtomicLong count = new AtomicLong();

  void record(long nanos) {
    long n = count.getAndIncrement();
    ring.set((int) (n & (SIZE - 1)), nanos);
  }

  EngineTimers.Reading read() {
    long n = count.get();
    long[] values = new long[(int) Math.min(n, SIZE)];
    for (int i = 0; i < values.length; i++) {
      values[i] = ring.get(i);
    }
    return new EngineTimers.Reading(n, values);
  }

  /** The sum of {@code samples}' counts and their values together. */
  static EngineTimers.Reading merged(Iterable<LatencySample> samples) {
    long n = 0;
    java.util.List<long[]> parts = new java.util.ArrayList<>();
    int size = 0;
    for (LatencySample s : samples) {
      EngineTimers.Reading r = s.read();
      n += r.count();
      long[] v = r.recentNanos();
      parts.add(v);
      size += v.length;
    }
    long[] all = new long[size];
    int at = 0;
    for (long[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return new EngineTimers.Reading(n, all);
  }
}
