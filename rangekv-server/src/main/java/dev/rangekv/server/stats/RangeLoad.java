package dev.rangekv.server.stats;

import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.sampling.KeySampler;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One range's load in the current interval, striped so concurrent requests rarely wait for each other:
 * a request takes one stripe's lock (its thread's home stripe, or the first free one), records every key
 * it touched there and releases it. Each stripe has its own counters, priority sampler and append
 * counts; {@link #drain} locks the stripes one by one, so every request lands wholly in one interval.
 *
 * <p>Several stripes' samples are combined by priority-sampling their estimates again down to the
 * capacity: an unbiased estimate of an unbiased estimate stays unbiased.
 */
final class RangeLoad {
  /** The per-stripe state; guarded by the stripe's own lock. */
  static final class Stripe {
    private final ReentrantLock lock = new ReentrantLock();
    private final KeySampler sampler;
    private long reads;
    private long writes;
    private long writeBytes;
    private long tailWrites;
    private long appends;
    private Key maxWritten;

    private Stripe(int capacity, SplittableRandom random) {
      this.sampler = new KeySampler(capacity, random);
    }

    void read(Key key, long weight) {
      reads += weight;
      sampler.offer(key, weight);
    }

    void write(Key key, long bytes) {
      writes++;
      writeBytes += bytes;
      sampler.offer(key, 1);
    }

    /** A put of {@code key} that was applied, against the interval's baseline. */
    void put(Key key, TailBaseline baseline) {
      tailWrites++;
      if (baseline.isAppend(key)) {
        appends++;
      }
      if (maxWritten == null || key.compareTo(maxWritten) > 0) {
        maxWritten = key;
      }
    }

    void unlock() {
      lock.unlock();
    }
  }

  private final Stripe[] stripes;
  private final int capacity;
  /** Only used by {@link #drain}, which its caller serialises. */
  private final SplittableRandom resampleRandom;
  private volatile TailBaseline baseline = TailBaseline.UNKNOWN;

  /** {@code stripes} must be a power of two. */
  RangeLoad(int capacity, int stripes, SplittableRandom random) {
    if (Integer.bitCount(stripes) != 1) {
      throw new IllegalArgumentException("stripes must be a power of two, got " + stripes);
    }
    this.capacity = capacity;
    this.stripes = new Stripe[stripes];
    for (int i = 0; i < stripes; i++) {
      this.stripes[i] = new Stripe(capacity, random.split());
    }
    this.resampleRandom = random.split();
  }

  /** A locked stripe: the caller records into it and then calls {@link Stripe#unlock()}. */
  Stripe acquire() {
    int mask = stripes.length - 1;
    int home = Thread.currentThread().hashCode();
    for (int i = 0; i <= mask; i++) {
      Stripe s = stripes[(home + i) & mask];
      if (s.lock.tryLock()) {
        return s;
      }
    }
    Stripe s = stripes[home & mask];
    s.lock.lock();
    return s;
  }

  TailBaseline baseline() {
    return baseline;
  }

  boolean needsBaseline() {
    return !baseline.known();
  }

  void baseline(TailBaseline b) {
    baseline = b;
  }

  /** Returns the interval's load and starts a new interval (whose baseline is looked up again). */
  RangeLoadInterval drain(long rangeId) {
    baseline = TailBaseline.UNKNOWN;
    long reads = 0;
    long writes = 0;
    long writeBytes = 0;
    long tailWrites = 0;
    long appends = 0;
    Key maxWritten = null;
    List<WeightedKey> samples = new ArrayList<>();
    for (Stripe s : stripes) {
      s.lock.lock();
      try {
        reads += s.reads;
        writes += s.writes;
        writeBytes += s.writeBytes;
        tailWrites += s.tailWrites;
        appends += s.appends;
        if (s.maxWritten != null && (maxWritten == null || s.maxWritten.compareTo(maxWritten) > 0)) {
          maxWritten = s.maxWritten;
        }
        samples.addAll(s.sampler.drain());
        s.reads = 0;
        s.writes = 0;
        s.writeBytes = 0;
        s.tailWrites = 0;
        s.appends = 0;
        s.maxWritten = null;
      } finally {
        s.lock.unlock();
      }
    }
    TailWrites tail = tailWrites == 0
        ? TailWrites.NONE
        : new TailWrites(tailWrites, appends, Optional.of(maxWritten));
    return new RangeLoadInterval(rangeId, reads, writes, writeBytes, resample(samples), tail);
  }

  private List<WeightedKey> resample(List<WeightedKey> samples) {
    if (samples.size() <= capacity) {
      return samples;
    }
    KeySampler again = new KeySampler(capacity, resampleRandom);
    for (WeightedKey k : samples) {
      again.offer(k.key(), k.weight());
    }
    return again.sample();
  }
}
