package dev.rangekv.bench.rangemap;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Seeded key generators for the routing benchmarks, one per key shape. Deterministic for a seed so
 * that runs compare like with like.
 */
enum KeySets {
  /** 8-byte big-endian numbers, uniform: hashed ids, pre-split keyspaces. */
  U64 {
    @Override
    Key random(SplittableRandom rnd) {
      return KeyCodec.bigEndian(rnd.nextLong());
    }
  },
  /** 16 to 32 random lowercase letters and digits: string ids with no shared prefix. */
  STRING {
    @Override
    Key random(SplittableRandom rnd) {
      return Key.utf8(alnum(rnd, 16 + rnd.nextInt(17)));
    }
  },
  /**
   * {@code "tenant1/"} then 8 to 24 random characters: every key ties on the first 8 bytes, the worst
   * case for the prefix column (every comparison falls through to the full key).
   */
  TIED_STRING {
    @Override
    Key random(SplittableRandom rnd) {
      return Key.utf8("tenant1/" + alnum(rnd, 8 + rnd.nextInt(17)));
    }
  };

  private static final char[] ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

  abstract Key random(SplittableRandom rnd);

  /** {@code n - 1} distinct sorted split points, the start keys of {@code n} ranges (empty key first). */
  List<Key> starts(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    TreeSet<Key> set = new TreeSet<>();
    set.add(Key.EMPTY);
    while (set.size() < n) {
      set.add(random(rnd));
    }
    return new ArrayList<>(set);
  }

  /** {@code count} random keys. */
  Key[] keys(int count, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Key[] out = new Key[count];
    for (int i = 0; i < count; i++) {
      out[i] = random(rnd);
    }
    return out;
  }

  /**
   * {@code count} random keys in ascending order, allocated in that order (so they sit in memory in
   * key order, as a batch built from a sorted source would): the walk then streams through memory
   * instead of taking a cache miss per key object.
   */
  Key[] sortedKeys(int count, long seed) {
    Key[] out = keys(count, seed);
    java.util.Arrays.sort(out);
    byte[] scratch = new byte[64];
    for (int i = 0; i < count; i++) {
      int n = out[i].size();
      out[i].copyTo(scratch, 0);
      out[i] = Key.of(scratch, 0, n); // allocates the key and its bytes next to the previous key's
    }
    return out;
  }

  private static String alnum(SplittableRandom rnd, int len) {
    byte[] b = new byte[len];
    for (int i = 0; i < len; i++) {
      b[i] = (byte) ALNUM[rnd.nextInt(ALNUM.length)];
    }
    return new String(b, StandardCharsets.US_ASCII);
  }
}
