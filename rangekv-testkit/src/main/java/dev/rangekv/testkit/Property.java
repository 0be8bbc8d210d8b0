package dev.rangekv.testkit;

import java.util.SplittableRandom;

/**
 * Runs a property against many seeded random cases whose size grows from small to large.
 *
 * <p>Every run has one base seed: fresh by default, or the value of {@code -Drangekv.seed=N}.
 * Case {@code i} draws from a generator derived from (base seed, i) and gets size
 * {@code minSize + (maxSize - minSize) * i / (cases - 1)}, so the same base seed replays the same
 * cases in the same order. A failing case is rethrown with the base seed, case number and size in
 * its message.
 */
public final class Property {
  /** System property holding a base seed to replay. */
  public static final String SEED_PROPERTY = "rangekv.seed";

  private final String name;
  private int cases = 1000;
  private int minSize = 1;
  private int maxSize = 100;

  private Property(String name) {
    this.name = name;
  }

  /** Starts describing a property; {@code name} appears in failure messages. */
  public static Property named(String name) {
    return new Property(name);
  }

  /** Number of random cases (default 1000). */
  public Property cases(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("cases must be >= 1, got " + n);
    }
    this.cases = n;
    return this;
  }

  /** Sizes grow linearly from {@code min} on the first case to {@code max} on the last. */
  public Property sizes(int min, int max) {
    if (min < 0 || max < min) {
      throw new IllegalArgumentException("bad size bounds min=" + min + " max=" + max);
    }
    this.minSize = min;
    this.maxSize = max;
    return this;
  }

  /** The body of a property: throws (e.g. an AssertJ error) when the property does not hold. */
  @FunctionalInterface
  public interface Body {
    void check(Gen gen) throws Exception;
  }

  /** Runs every case; returns the base seed used. */
  public long check(Body body) {
    long base = baseSeed();
    for (int i = 0; i < cases; i++) {
      int size = cases == 1 ? maxSize : minSize + (int) ((long) (maxSize - minSize) * i / (cases - 1));
      Gen gen = new Gen(new SplittableRandom(mix(base, i)), size);
      try {
        body.check(gen);
      } catch (Throwable t) {
        String msg = "property '" + name + "' failed at case " + i + " of " + cases + " (size " + size
            + "); replay with -D" + SEED_PROPERTY + "=" + base + ": " + t;
        System.err.println(msg);
        throw new AssertionError(msg, t);
      }
    }
    return base;
  }

  static long baseSeed() {
    String s = System.getProperty(SEED_PROPERTY, "").trim();
    if (!s.isEmpty() && !s.startsWith("${")) {
      try {
        return Long.parseLong(s);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("-D" + SEED_PROPERTY + " must be a long, got '" + s + "'", e);
      }
    }
    return new SplittableRandom().nextLong();
  }

  static long mix(long base, int caseIndex) {
    long z = base + 0x9E3779B97F4A7C15L * (caseIndex + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
