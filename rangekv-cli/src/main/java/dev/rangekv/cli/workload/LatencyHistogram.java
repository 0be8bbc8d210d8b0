package dev.rangekv.cli.workload;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Latencies in microseconds, counted in log-linear buckets: exact below 128 µs, then 64 buckets per
 * power of two, so a reported percentile is within 1/128 of a recorded value (an HdrHistogram with
 * about two significant digits, lock-free and fixed in size). Thread-safe: {@link #record} from any
 * thread; {@link #snapshot} reads a consistent-enough copy for live lines (counts only ever grow).
 */
public final class LatencyHistogram {
  static final int SUB_BITS = 6;
  static final int SUB = 1 << SUB_BITS;           // buckets per power of two
  static final int EXACT = 2 * SUB;               // values below this have their own bucket
  static final int BUCKETS = EXACT + (63 - SUB_BITS - 1) * SUB;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

  /** Counts one latency; negative values count as 0. */
  public void record(long micros) {
    counts.incrementAndGet(index(Math.max(0, micros)));
  }

  /** The current counts as an immutable snapshot. */
  public Snapshot snapshot() {
    long[] copy = new long[BUCKETS];
    for (int i = 0; i < BUCKETS; i++) {
      copy[i] = counts.get(i);
    }
    return new Snapshot(copy);
  }

  static int index(long v) {
    if (v < EXACT) {
      return (int) v;
    }
    int e = 63 - Long.numberOfLeadingZeros(v); // v in [2^e, 2^(e+1)), e >= SUB_BITS + 1
    int shift = e - SUB_BITS;
    return EXACT + (e - SUB_BITS - 1) * SUB + (int) ((v >>> shift) - SUB);
  }

  /** The value a bucket reports: itself when exact, else the bucket's midpoint. */
  static long value(int index) {
    if (index < EXACT) {
      return index;
    }
    int e = (index - EXACT) / SUB + SUB_BITS + 1;
    int shift = e - SUB_BITS;
    long lower = ((long) ((index - EXACT) % SUB + SUB)) << shift;
    return lower + (1L << shift) / 2;
  }

  /** Bucket counts at one moment; subtract two to get an interval. Immutable. */
  public static final class Snapshot {
    private final long[] counts;
    private final long total;

    Snapshot(long[] counts) {
      this.counts = counts;
      long t = 0;
      for (long c : counts) {
        t += c;
      }
      this.total = t;
    }

    /** An empty snapshot. */
    public static Snapshot empty() {
      return new Snapshot(new long[BUCKETS]);
    }

    public long count() {
      return total;
    }

    /** The counts recorded between {@code earlier} and this snapshot. */
    public Snapshot minus(Snapshot earlier) {
      long[] d = new long[BUCKETS];
      for (int i = 0; i < BUCKETS; i++) {
        d[i] = counts[i] - earlier.counts[i];
      }
      return new Snapshot(d);
    }

    /** The sum of both. */
    public Snapshot plus(Snapshot other) {
      long[] d = new long[BUCKETS];
      for (int i = 0; i < BUCKETS; i++) {
        d[i] = counts[i] + other.counts[i];
      }
      return new Snapshot(d);
    }

    /**
     * The {@code q}-quantile in microseconds (the value of rank ceil(q * count), as a sorted list's
     * {@code sorted[ceil(q * n) - 1]}); 0 when empty.
     */
    public long percentile(double q) {
      if (q < 0 || q > 1) {
        throw new IllegalArgumentException("quantile must be in [0, 1], got " + q);
      }
      if (total == 0) {
        return 0;
      }
      long rank = Math.max(1, (long) Math.ceil(q * total));
      long seen = 0;
      for (int i = 0; i < BUCKETS; i++) {
        seen += counts[i];
        if (seen >= rank) {
          return value(i);
        }
      }
      throw new IllegalStateException("rank " + rank + " beyond count " + total);
    }

    /** The largest bucket's value in microseconds; 0 when empty. */
    public long max() {
      for (int i = BUCKETS - 1; i >= 0; i--) {
        if (counts[i] > 0) {
          return value(i);
        }
      }
      return 0;
    }
  }
}
