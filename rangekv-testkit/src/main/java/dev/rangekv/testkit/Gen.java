package dev.rangekv.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The random source of one property case, with its size: how big the generated structures should
 * be. Deterministic for a given seed. Not thread-safe (one case, one thread).
 */
public final class Gen {
  private final SplittableRandom random;
  private final int size;

  public Gen(SplittableRandom random, int size) {
    this.random = random;
    this.size = size;
  }

  /** The case's size, growing from the property's min to its max over the run. */
  public int size() {
    return size;
  }

  public SplittableRandom random() {
    return random;
  }

  public int nextInt(int bound) {
    return random.nextInt(bound);
  }

  /** Uniform in {@code [lo, hi]}. */
  public int between(int lo, int hi) {
    return random.nextInt(lo, hi + 1);
  }

  public long nextLong() {
    return random.nextLong();
  }

  public boolean nextBoolean() {
    return random.nextBoolean();
  }

  /** True with probability {@code p}. */
  public boolean chance(double p) {
    return random.nextDouble() < p;
  }

  /** Random bytes of length in {@code [minLen, maxLen]}. */
  public byte[] bytes(int minLen, int maxLen) {
    byte[] b = new byte[between(minLen, maxLen)];
    random.nextBytes(b);
    return b;
  }

  /**
   * Bytes drawn from a small alphabet ({@code alphabet} distinct byte values, starting at 0), so that
   * shared prefixes and equal keys are common: the interesting cases for ordered structures.
   */
  public byte[] smallAlphabetBytes(int minLen, int maxLen, int alphabet) {
    byte[] b = new byte[between(minLen, maxLen)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) random.nextInt(alphabet);
    }
    return b;
  }

  public <T> T pick(List<T> items) {
    return items.get(random.nextInt(items.size()));
  }

  /** A list of {@code n} items from {@code item}. */
  public <T> List<T> listOf(int n, Supplier<T> item) {
    List<T> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(item.get());
    }
    return out;
  }
}
