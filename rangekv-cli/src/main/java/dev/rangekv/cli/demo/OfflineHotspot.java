package dev.rangekv.cli.demo;

import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.keydesign.HashBucketKeys;
import dev.rangekv.sim.hotspot.HotspotDemo;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * {@code rangekv demo --offline}: the monotonic-key hotspot computed on a pre-split range map, no
 * cluster. Prints per-range write counts for big-endian ids and for hash-bucketed ids.
 */
final class OfflineHotspot {
  private static final int BAR_WIDTH = 30;

  private final int ranges;
  private final int ids;
  private final long firstId;

  OfflineHotspot(int ranges, int ids, long firstId) {
    this.ranges = ranges;
    this.ids = ids;
    this.firstId = firstId;
  }

  /** Prints the table; {@code IllegalArgumentException} for bounds the simulation refuses. */
  void print(PrintWriter out) {
    HotspotDemo.Report report = HotspotDemo.run(new HotspotDemo.Config(ranges, firstId, ids));
    out.printf(Locale.ROOT, "Writing ids %,d..%,d into %d ranges pre-split uniformly over the 8-byte keyspace.%n",
        firstId, firstId + ids - 1, ranges);
    out.printf(Locale.ROOT, "big-endian: id %,d is key %s; bucketed: the same id is key %s.%n%n",
        firstId, KeyCodec.bigEndian(firstId).toHex(), new HashBucketKeys(ranges).key(firstId).toHex());
    out.printf(Locale.ROOT, "%-7s %-20s %12s  %-" + BAR_WIDTH + "s %12s  %s%n",
        "range", "start key", "big-endian", "", "bucketed", "");
    for (HotspotDemo.RangeLoad load : report.loads()) {
      out.printf(Locale.ROOT, "%-7s %-20s %,12d  %-" + BAR_WIDTH + "s %,12d  %s%n",
          "r" + load.rangeId(), load.start().isEmpty() ? "\"\"" : load.start().toHex(),
          load.bigEndianWrites(), bar(load.bigEndianWrites()), load.bucketedWrites(), bar(load.bucketedWrites()));
    }
    out.printf(Locale.ROOT, "%nbig-endian ids: %d of %d ranges took writes; the busiest took %.1f%% of them.%n",
        report.rangesHitBigEndian(), ranges, 100 * report.maxShareBigEndian());
    out.printf(Locale.ROOT, "bucketed ids:   %d of %d ranges took writes; the busiest took %.2f%% (ideal %.2f%%).%n%n",
        report.rangesHitBucketed(), ranges, 100 * report.maxShareBucketed(), 100.0 / ranges);
    out.println("Why: consecutive ids share their leading bytes, so they sort next to each other and fall into one");
    out.println("range; new ids keep arriving there, and splitting it just leaves the hot tail in one half. A one-byte");
    out.println("hash-bucket prefix scatters consecutive ids over every range, at a price: a scan in id order becomes");
    out.println("one sub-scan per bucket, merged in order.");
    out.flush();
  }

  private String bar(long writes) {
    int n = (int) Math.round((double) writes * BAR_WIDTH / ids);
    return "#".repeat(writes > 0 ? Math.max(1, n) : 0);
  }
}
