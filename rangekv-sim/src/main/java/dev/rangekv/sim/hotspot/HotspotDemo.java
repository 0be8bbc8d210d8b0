package dev.rangekv.sim.hotspot;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.keydesign.HashBucketKeys;
import dev.rangekv.core.rangemap.RangeMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The monotonic-key hotspot, computed: routes a run of consecutive ids through a pre-split range map
 * twice, once encoded big-endian and once behind a hash-bucket prefix, and counts the writes each
 * range would take. Pure and deterministic; the CLI's offline {@code demo} prints its {@link Report}.
 */
public final class HotspotDemo {
  private HotspotDemo() {}

  /**
   * What to run.
   *
   * @param ranges ranges pre-split uniformly over the 8-byte keyspace, 1 to 256
   * @param firstId the first id written; ids are {@code firstId, firstId + 1, ...}
   * @param ids how many ids are written
   */
  public record Config(int ranges, long firstId, int ids) {
    public Config {
      if (ranges < 1 || ranges > 256) {
        throw new IllegalArgumentException("ranges must be in [1, 256], got " + ranges);
      }
      if (ids < 1) {
        throw new IllegalArgumentException("ids must be >= 1, got " + ids);
      }
    }
  }

  /** The writes one range takes under each key design. */
  public record RangeLoad(long rangeId, Key start, long bigEndianWrites, long bucketedWrites) {}

  /** Per-range write counts, in key order. */
  public record Report(Config config, List<RangeLoad> loads) {
    public Report {
      loads = List.copyOf(loads);
    }

    public long rangesHitBigEndian() {
      return loads.stream().filter(l -> l.bigEndianWrites() > 0).count();
    }

    public long rangesHitBucketed() {
      return loads.stream().filter(l -> l.bucketedWrites() > 0).count();
    }

    /** The largest share of all writes that one range takes with big-endian ids, 0 to 1. */
    public double maxShareBigEndian() {
      return loads.stream().mapToLong(RangeLoad::bigEndianWrites).max().orElse(0) / (double) config.ids();
    }

    /** The largest share of all writes that one range takes with bucketed ids, 0 to 1. */
    public double maxShareBucketed() {
      return loads.stream().mapToLong(RangeLoad::bucketedWrites).max().orElse(0) / (double) config.ids();
    }
  }

  /** Runs the comparison with one hash bucket per range. */
  public static Report run(Config config) {
    RangeMap map = RangeMap.presplit(KeyCodec.uniformSplitPoints(config.ranges()), 1, List.of("n1"));
    HashBucketKeys bucketed = new HashBucketKeys(config.ranges());
    Key[] plain = new Key[config.ids()];
    Key[] salted = new Key[config.ids()];
    for (int i = 0; i < config.ids(); i++) {
      long id = config.firstId() + i;
      plain[i] = KeyCodec.bigEndian(id);
      salted[i] = bucketed.key(id);
    }
    Arrays.sort(salted); // a batch routes fastest in key order
    long[] plainCounts = count(map, plain);
    long[] saltedCounts = count(map, salted);
    List<RangeLoad> loads = new ArrayList<>(map.size());
    for (int r = 0; r < map.size(); r++) {
      loads.add(new RangeLoad(map.get(r).rangeId(), map.get(r).start(), plainCounts[r], saltedCounts[r]));
    }
    return new Report(config, loads);
  }

  private static long[] count(RangeMap map, Key[] keys) {
    int[] routed = new int[keys.length];
    map.lookupSorted(keys, routed);
    long[] counts = new long[map.size()];
    for (int r : routed) {
      counts[r]++;
    }
    return counts;
  }
}
