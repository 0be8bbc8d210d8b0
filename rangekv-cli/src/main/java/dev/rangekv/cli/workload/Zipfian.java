package dev.rangekv.cli.workload;

import java.util.random.RandomGenerator;

/**
 * An exact sampler of the Zipf distribution over ranks {@code 1..n}: P(k) = k^-theta / H(n, theta). It
 * uses rejection-inversion (Hörmann and Derflinger, "Rejection-inversion to generate variates from
 * monotone discrete distributions", 1996, as in Apache Commons Math's {@code ZipfDistribution}): O(1)
 * setup and expected O(1) per sample for any {@code n}, unlike YCSB's Gray et al. generator, which needs
 * the O(n) zeta sum and approximates the tail. Immutable and thread-safe (the caller passes the random).
 */
public final class Zipfian {
  private final long n;
  private final double theta;
  private final double hIntegralX1;
  private final double hIntegralN;
  private final double s;

  public Zipfian(long n, double theta) {
    if (n < 1) {
      throw new IllegalArgumentException("zipfian needs n >= 1, got " + n);
    }
    if (!(theta > 0)) {
      throw new IllegalArgumentException("zipfian needs theta > 0, got " + theta);
    }
    this.n = n;
    this.theta = theta;
    this.hIntegralX1 = hIntegral(1.5) - 1d;
    this.hIntegralN = hIntegral(n + 0.5);
    this.s = 2d - hIntegralInverse(hIntegral(2.5) - h(2));
  }

  public long n() {
    return n;
  }

  /** A rank in {@code [1, n]}; rank 1 is the most likely. */
  public long sample(RandomGenerator random) {
    while (true) {
      // u is uniform in (hIntegralX1, hIntegralN]: invert the integral of the hat function
      double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
      double x = hIntegralInverse(u);
      long k = (long) (x + 0.5);
      if (k < 1) {
        k = 1;
      } else if (k > n) {
        k = n;
      }
      // accept at once when k is close to x (the squeeze), else compare with the exact mass under the hat
      if (k - x <= s || u >= hIntegral(k + 0.5) - h(k)) {
        return k;
      }
    }
  }

  /** The exact probability of rank {@code k} (O(n): for tests and small n). */
  public static double probability(long k, long n, double theta) {
    double norm = 0;
    for (long i = 1; i <= n; i++) {
      norm += Math.pow(i, -theta);
    }
    return Math.pow(k, -theta) / norm;
  }

  /** H(x) = integral of h from 1 to x, shifted: ((x^(1-theta)) - 1) / (1 - theta), or log x at theta 1. */
  private double hIntegral(double x) {
    double logX = Math.log(x);
    return helper2((1d - theta) * logX) * logX;
  }

  private double h(double x) {
    return Math.exp(-theta * Math.log(x));
  }

  private double hIntegralInverse(double x) {
    double t = x * (1d - theta);
    if (t < -1d) {
      t = -1d; // rounding can push t just below its bound -1
    }
    return Math.exp(helper1(t) * x);
  }

  /** log(1 + x) / x, accurate near 0. */
  private static double helper1(double x) {
    return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1d - x * (0.5 - x * (1d / 3 - x * 0.25));
  }

  /** (exp(x) - 1) / x, accurate near 0. */
  private static double helper2(double x) {
    return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1d + x * 0.5 * (1d + x * (1d / 3) * (1d + x * 0.25));
  }
}
