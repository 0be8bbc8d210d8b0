package dev.rangekv.testkit;

import java.util.SplittableRandom;

/**
 * The one base seed a randomized cluster test draws every choice from: fresh by default, or the value
 * of {@code -Drangekv.seed=N}, printed at the start so a failing run can be replayed. Each independent
 * source of choices (a writer thread, a churner) takes its own {@link #stream stream} of the base seed,
 * so adding a source does not shift the others' choices. Timing still differs between runs: a replay
 * repeats the choices, not the interleaving.
 */
public final class Seed {
  private Seed() {}

  /** The base seed for {@code test}, printed with the option that replays it. */
  public static long of(String test) {
    long seed = Property.baseSeed();
    System.out.println(test + ": seed=" + seed + " (replay with -D" + Property.SEED_PROPERTY + "=" + seed + ")");
    return seed;
  }

  /** Stream {@code index} of {@code base}: independent of the other streams, the same on every replay. */
  public static SplittableRandom stream(long base, int index) {
    return new SplittableRandom(Property.mix(base, index));
  }
}
