package dev.rangekv.cli.workload;

import java.util.random.RandomGenerator;

/**
 * Picks the index of an existing key, in {@code [0, n)}, where {@code n} is how many keys the key space
 * holds now (it grows while a phase inserts). Instances cache a sampler for the last {@code n}, so they
 * are not thread-safe: each load slot owns its own.
 */
public sealed interface KeyChooser {
  /** An index in {@code [0, n)}; {@code n >= 1}. */
  long next(RandomGenerator random, long n);

  /** The chooser for {@code distribution} (fresh state). */
  static KeyChooser of(Distribution distribution) {
    return switch (distribution) {
      case UNIFORM -> new Uniform();
      case ZIPFIAN -> new ScrambledZipfian();
      case LATEST -> new Latest();
    };
  }

  /** How a phase picks existing keys. */
  enum Distribution { UNIFORM, ZIPFIAN, LATEST }

  /** YCSB's zipfian constant. */
  double THETA = 0.99;

  /** Every key equally likely. */
  final class Uniform implements KeyChooser {
    @Override
    public long next(RandomGenerator random, long n) {
      return random.nextLong(n);
    }
  }

  /**
   * Zipfian popularity with ranks spread over the key space by an affine bijection (rank r goes to
   * {@code a * (r - 1) mod n}, a coprime with n), so the hot keys are not neighbours that one range
   * would hold together (YCSB's "scrambled zipfian" hashes instead, which maps some ranks together).
   */
  final class ScrambledZipfian implements KeyChooser {
    private Zipfian zipf;
    private long multiplier;

    @Override
    public long next(RandomGenerator random, long n) {
      if (zipf == null || zipf.n() != n) {
        zipf = new Zipfian(n, THETA);
        multiplier = coprimeMultiplier(n);
      }
      return scramble(zipf.sample(random) - 1, n, multiplier);
    }

    /** 3^18 (so a * index stays below 2^63 for the 10-digit key space), moved up to the next value coprime with n. */
    static long coprimeMultiplier(long n) {
      long a = 387_420_489L % n;
      while (gcd(Math.max(a, 1), n) != 1) {
        a++;
      }
      return Math.max(a, 1);
    }

    /** The key index of zero-based rank {@code rank}: a bijection of {@code [0, n)} when gcd(a, n) = 1. */
    static long scramble(long rank, long n, long a) {
      return Math.floorMod(a * rank, n);
    }

    private static long gcd(long x, long y) {
      while (y != 0) {
        long t = x % y;
        x = y;
        y = t;
      }
      return x;
    }
  }

  /** YCSB's "latest": zipfian over recency, so the most recently inserted key is the most likely. */
  final class Latest implements KeyChooser {
    private Zipfian zipf;

    @Override
    public long next(RandomGenerator random, long n) {
      if (zipf == null || zipf.n() != n) {
        zipf = new Zipfian(n, THETA); // O(1) setup: rebuilt whenever an insert grew the key space
      }
      return n - zipf.sample(random);
    }
  }
}
