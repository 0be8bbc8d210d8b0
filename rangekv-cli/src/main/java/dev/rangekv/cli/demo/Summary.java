package dev.rangekv.cli.demo;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The end of the demo: the two key designs side by side, and what the numbers mean. */
final class Summary {
  private Summary() {}

  static void print(PrintWriter out, List<PhaseStats> phases, double tickSeconds) {
    out.println();
    out.println("== summary: the same order events, two key designs ==");
    row(out, "", phases, p -> p.phase().shortName() + " " + p.phase().keyShape());
    row(out, "seconds run", phases, p -> String.format(Locale.ROOT, "%.0f", p.seconds()));
    row(out, "writes/s (acknowledged)", phases, p -> String.format(Locale.ROOT, "%,.0f", p.writesPerSecond()));
    row(out, "ranges written per tick", phases, p -> String.format(Locale.ROOT, "%.1f (tick %.0fs)",
        p.rangesWrittenPerTick(tickSeconds), tickSeconds));
    row(out, "hottest range's share", phases, p -> String.format(Locale.ROOT, "%.0f%% of writes", 100 * p.hottestShare()));
    row(out, "splits (declined)", phases, p -> p.count("split") + " (" + p.count("split-declined") + ")");
    row(out, "moves / leader transfers", phases, p -> p.count("move") + " / " + p.count("leader-transfer"));
    row(out, "alerts about its keys", phases, PhaseStats::alerts);
    row(out, "ranges at the end", phases, p -> Integer.toString(p.ranges()));
    for (PhaseStats p : phases) {
      out.println("nodes at the end of " + p.phase().shortName() + " (replicas/leaders/load of the ranges led): "
          + (p.nodes().isEmpty() ? "unknown" : p.nodes()));
    }
    out.println();
    out.println("With event_ts first, every new event sorts after every existing one: all writes go to the last");
    out.println("range, splitting it leaves the hot tail where it was, and the monotonic-key alert fires. With");
    out.println("order_id first, writes land all over the keyspace, so splits and moves spread them over the nodes.");
    out.println("Keep time order where you need it with a bucket prefix: (bucket, event_ts, ...), B scans merged.");
    out.flush();
  }

  private static void row(PrintWriter out, String label, List<PhaseStats> phases, Function<PhaseStats, String> cell) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-26s", label));
    for (PhaseStats p : phases) {
      sb.append(String.format(Locale.ROOT, "  %-36s", cell.apply(p)));
    }
    out.println(sb.toString().stripTrailing());
  }
}
