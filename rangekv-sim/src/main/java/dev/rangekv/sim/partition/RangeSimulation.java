package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Range partitioning under inserts (seed 003's monotonic-key trap): ranges are a sorted list of
 * start keys, each owned by one node. Either the keyspace is pre-split into ranges assigned
 * round-robin, or it starts as one range that splits at its median key when it exceeds
 * {@code maxKeysPerRange}, the right half going to the node with the fewest ranges. Inserts are
 * either monotonic (each key above all before it) or uniform (hash-scattered).
 *
 * <p>Keys are 8-byte big-endian numbers: monotonic insert {@code i} is {@code i * stride} with the
 * stride spreading the run over the whole keyspace; uniform insert {@code i} is {@code xxh64(i)}.
 */
public final class RangeSimulation {
  private RangeSimulation() {}

  /** How the keyspace is divided. */
  public enum Layout { PRE_SPLIT, SIZE_SPLIT }

  /** The order keys arrive in. */
  public enum Inserts { MONOTONIC, UNIFORM }

  /**
   * @param inserts total number of inserts
   * @param nodes number of nodes
   * @param preSplitRanges ranges created up front (PRE_SPLIT only)
   * @param maxKeysPerRange split threshold (SIZE_SPLIT only)
   * @param window inserts per measuring window
   */
  public record Config(int inserts, int nodes, int preSplitRanges, int maxKeysPerRange, int window) {
    public Config {
      if (inserts < 1 || nodes < 1 || preSplitRanges < 1 || maxKeysPerRange < 2 || window < 1) {
        throw new IllegalArgumentException("bad range simulation config " + inserts + "/" + nodes + "/"
            + preSplitRanges + "/" + maxKeysPerRange + "/" + window);
      }
    }
  }

  /**
   * Where the writes went.
   *
   * @param ranges ranges at the end
   * @param rangesWrittenLastWindow distinct ranges written in the final window
   * @param nodeShareLastWindow busiest node's share of the final window's writes
   * @param meanWindowNodeShare busiest node's share per window, averaged over all windows: 1.0
   *     means one node took every write at any moment, {@code 1/nodes} is perfectly even
   * @param peakTotal busiest node's total writes / mean
   */
  public record Result(Layout layout, Inserts inserts, int ranges, int rangesWrittenLastWindow,
      double nodeShareLastWindow, double meanWindowNodeShare, double peakTotal) {}

  public static Result run(Layout layout, Inserts order, Config cfg) {
    List<Key> starts = new ArrayList<>();
    List<Integer> owner = new ArrayList<>();
    List<Integer> size = new ArrayList<>();
    int[] rangesPerNode = new int[cfg.nodes()];
    int initial = layout == Layout.PRE_SPLIT ? cfg.preSplitRanges() : 1;
    for (int r = 0; r < initial; r++) {
      // Evenly spaced unsigned boundaries: r * 2^64 / initial.
      long start = r == 0 ? 0 : Long.divideUnsigned(-1L, initial) * r + r;
      starts.add(r == 0 ? Key.EMPTY : key(start));
      owner.add(r % cfg.nodes());
      size.add(0);
      rangesPerNode[r % cfg.nodes()]++;
    }
    NavigableSet<Key> stored = new TreeSet<>();
    long stride = Long.divideUnsigned(-1L, cfg.inserts());
    long[] total = new long[cfg.nodes()];
    int[] windowNode = new int[cfg.nodes()];
    Set<Integer> windowRanges = new HashSet<>();
    double shareSum = 0;
    int windows = 0;
    int lastRanges = 0;
    double lastShare = 0;
    for (int i = 0; i < cfg.inserts(); i++) {
      Key k = order == Inserts.MONOTONIC ? key(stride * i) : key(XxHash64.hash(longBytes(i), 0, 8, 0));
      stored.add(k);
      int r = rangeOf(starts, k);
      size.set(r, size.get(r) + 1);
      total[owner.get(r)]++;
      windowNode[owner.get(r)]++;
      windowRanges.add(r);
      if (layout == Layout.SIZE_SPLIT && size.get(r) > cfg.maxKeysPerRange()) {
        split(r, starts, owner, size, rangesPerNode, stored);
      }
      boolean windowEnds = (i + 1) % cfg.window() == 0 || i == cfg.inserts() - 1;
      if (windowEnds) {
        int inWindow = (i % cfg.window()) + 1;
        lastShare = (double) max(windowNode) / inWindow;
        lastRanges = windowRanges.size();
        shareSum += lastShare;
        windows++;
        Arrays.fill(windowNode, 0);
        windowRanges.clear();
      }
    }
    double mean = (double) cfg.inserts() / cfg.nodes();
    return new Result(layout, order, starts.size(), lastRanges, lastShare, shareSum / windows,
        max(total) / mean);
  }

  /** Index of the range holding {@code k}: the greatest start <= k. */
  static int rangeOf(List<Key> starts, Key k) {
    int i = Collections.binarySearch(starts, k);
    return i >= 0 ? i : -i - 2;
  }

  private static void split(int r, List<Key> starts, List<Integer> owner, List<Integer> size, int[] rangesPerNode,
      NavigableSet<Key> stored) {
    Key lo = starts.get(r);
    NavigableSet<Key> inRange = r + 1 < starts.size() ? stored.subSet(lo, true, starts.get(r + 1), false)
        : stored.tailSet(lo, true);
    int half = size.get(r) / 2;
    Key splitKey = inRange.stream().skip(half).findFirst()
        .orElseThrow(() -> new IllegalStateException("range size must match the keys stored in it"));
    int target = 0;
    for (int n = 1; n < rangesPerNode.length; n++) {
      if (rangesPerNode[n] < rangesPerNode[target]) {
        target = n;
      }
    }
    starts.add(r + 1, splitKey);
    owner.add(r + 1, target);
    size.add(r + 1, size.get(r) - half);
    size.set(r, half);
    rangesPerNode[target]++;
  }

  private static Key key(long v) {
    return Key.of(longBytes(v));
  }

  private static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (v >>> (56 - 8 * i));
    }
    return b;
  }

  private static long max(long[] a) {
    long m = 0;
    for (long x : a) {
      m = Math.max(m, x);
    }
    return m;
  }

  private static int max(int[] a) {
    int m = 0;
    for (int x : a) {
      m = Math.max(m, x);
    }
    return m;
  }
}
