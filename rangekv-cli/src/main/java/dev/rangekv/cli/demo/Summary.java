package dev.rangekv.cli.demo;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/** The end of the demo: the three key designs side by side, what limited them, and what to try next. */
final class Summary {
  private static final int CELL = 36;

  /** How the demo ran: the figures the summary's explanation needs. */
  record Setup(int nodes, int inFlight, double tickSeconds, int cores) {}

  private Summary() {}

  static void print(PrintWriter out, List<PhaseStats> phases, List<LastMinute> queries, Setup setup) {
    out.println();
    out.println("== summary: the same order events, three key designs ==");
    double base = phases.isEmpty() ? 0 : phases.get(0).writesPerSecond();
    row(out, "", phases, p -> p.phase().shortName());
    row(out, "key", phases, p -> p.phase().keyShape());
    row(out, "seconds run", phases, p -> String.format(Locale.ROOT, "%.0f", p.seconds()));
    row(out, "writes/s (acknowledged)", phases, p -> String.format(Locale.ROOT, "%,.0f%s", p.writesPerSecond(),
        base > 0 && p != phases.get(0) ? String.format(Locale.ROOT, " (%.1fx phase 1)", p.writesPerSecond() / base) : ""));
    row(out, "ranges written per tick", phases, p -> String.format(Locale.ROOT, "%.1f (tick %.0fs)",
        p.rangesWrittenPerTick(setup.tickSeconds()), setup.tickSeconds()));
    row(out, "hottest range's share", phases, p -> String.format(Locale.ROOT, "%.0f%% of writes", 100 * p.hottestShare()));
    row(out, "splits (declined)", phases, p -> p.count("split") + " (" + p.count("split-declined") + ")");
    row(out, "moves / leader transfers", phases, p -> p.count("move") + " / " + p.count("leader-transfer"));
    row(out, "alerts about its keys", phases, PhaseStats::alerts);
    row(out, "ranges at the end", phases, p -> Integer.toString(p.ranges()));
    row(out, "CPU (whole process)", phases, p -> String.format(Locale.ROOT, "%.0f%% of %d cores", 100 * p.cpuLoad(),
        setup.cores()));
    row(out, "CPU per write", phases, p -> p.writesPerSecond() == 0 ? "-"
        : String.format(Locale.ROOT, "%.2f ms", cpuMillisPerWrite(p, setup)));
    row(out, "last minute of events", phases, p -> query(queries, p.phase()).map(Summary::cell).orElse("not asked"));
    row(out, "  in time order", phases, p -> query(queries, p.phase()).map(q -> q.timeOrdered() ? "yes" : "no")
        .orElse("-"));
    for (PhaseStats p : phases) {
      out.println("nodes at the end of " + p.phase().shortName() + " (replicas/leaders/load of the ranges led): "
          + (p.nodes().isEmpty() ? "unknown" : p.nodes()));
    }
    out.println();
    out.println("With event_ts first, every new event sorts after every existing one: all writes go to the last");
    out.println("range, splitting it leaves the hot tail where it was, and the monotonic-key alert fires. With");
    out.println("order_id first, writes land all over the keyspace, so splits and moves spread them over the nodes,");
    out.println("but \"the last minute of events\" must read the whole table. A bucket first, (bucket, event_ts, ...),");
    out.println("spreads writes over B streams and answers the time query with B scans merged in time order.");
    limits(out, phases, setup);
    out.flush();
  }

  /** Process CPU time per acknowledged write: all nodes' Raft, storage and RPC work, the client's and the writers'. */
  private static double cpuMillisPerWrite(PhaseStats p, Setup setup) {
    return 1000 * p.cpuLoad() * setup.cores() / p.writesPerSecond();
  }

  /**
   * What bounded the rates, from what was measured: the machine's CPU (already in phase 1, when all nodes
   * share one JVM on few cores), one range's Raft group (phase 1 short of the CPU), or the writes kept in
   * flight.
   */
  private static void limits(PrintWriter out, List<PhaseStats> phases, Setup setup) {
    Optional<PhaseStats> spread = phases.stream().skip(1).max((a, b) -> Double.compare(a.writesPerSecond(),
        b.writesPerSecond()));
    if (spread.isEmpty()) {
      return;
    }
    PhaseStats first = phases.get(0);
    PhaseStats p = spread.get();
    out.println();
    if (first.cpuLoad() >= 0.8 && first.writesPerSecond() > 0 && p.writesPerSecond() > 0) {
      out.printf(Locale.ROOT, "What limits it: this machine's CPU, in every phase. Phase 1 already kept %.0f%% of its %d"
          + " cores busy, so%nits one hot range was not the bound: all %d nodes (Raft, RocksDB, gRPC), the client and the"
          + " writers share one JVM.%nSpreading the writes cost more CPU per write here (%.2f ms in phase 1, %.2f ms in %s:"
          + " fewer writes%nshare each Raft entry, and more ranges run Raft groups), so %s wrote %.1fx as fast. On"
          + " separate machines%neach node brings its own cores: phase 1 stays bound to the tail range's leader while the"
          + " spread designs add nodes.%n", 100 * first.cpuLoad(), setup.cores(), setup.nodes(),
          cpuMillisPerWrite(first, setup), cpuMillisPerWrite(p, setup), p.phase().shortName(), p.phase().shortName(),
          p.writesPerSecond() / first.writesPerSecond());
      return;
    }
    out.printf(Locale.ROOT, "What limits it: phase 1 is one range's Raft group (one leader applying in order). %s ran%n",
        p.phase().shortName());
    if (p.cpuLoad() >= 0.8) {
      out.printf(Locale.ROOT, "at %.0f%% of this machine's %d cores: all %d nodes (Raft, RocksDB, gRPC), the client and"
          + " the writers share one JVM,%nso more ranges cannot add more here; on separate machines each node brings its"
          + " own cores.%n", 100 * p.cpuLoad(), setup.cores(), setup.nodes());
    } else {
      out.printf(Locale.ROOT, "at %.0f%% of %d cores, so CPU was not the bound: %d writes in flight were (try --writers"
          + " %d).%n", 100 * p.cpuLoad(), setup.cores(), setup.inFlight(), setup.inFlight() * 2);
    }
  }

  static String queryLine(LastMinute q) {
    return String.format(Locale.ROOT, "%s %s: %,d events in the window; %d scan%s read %,d keys in %,d ms; time order %s",
        q.phase().shortName(), q.phase().keyShape(), q.events(), q.scans(), q.scans() == 1 ? "" : "s merged,",
        q.keysRead(), q.millis(), q.timeOrdered() ? "kept" : "lost");
  }

  private static String cell(LastMinute q) {
    return String.format(Locale.ROOT, "%,d read by %d scan%s, %,d ms", q.keysRead(), q.scans(), q.scans() == 1 ? "" : "s",
        q.millis());
  }

  private static Optional<LastMinute> query(List<LastMinute> queries, Phase phase) {
    return queries.stream().filter(q -> q.phase() == phase).findFirst();
  }

  /** Where to go from here: the console, the admin commands, a real 3-process cluster. */
  static void tryNext(PrintWriter out, String consoleUrl, String clusterAddress) {
    out.println();
    out.println("== what to try next ==");
    out.println("  the web console (live while a demo runs): " + consoleUrl + "  (ranges, key heat map, hot ranges)");
    out.println("  a longer run to explore:  rangekv demo --duration 10m   then, from another shell while it runs");
    out.println("  (the address changes per run; this one was " + clusterAddress + "):");
    out.println("    rangekv ranges --cluster " + clusterAddress + "       every range: span, replicas, leader, size, QPS");
    out.println("    rangekv why r3 --cluster " + clusterAddress + "       why the controller split, moved or declined r3");
    out.println("    rangekv events --cluster " + clusterAddress + "       the controller's latest decisions with reasons");
    out.println("  a 3-process cluster on this machine:  README.md, \"A 3-process cluster on one machine\"");
    out.println("  the map-only hotspot table, no cluster:  rangekv demo --offline");
    out.flush();
  }

  private static void row(PrintWriter out, String label, List<PhaseStats> phases, Function<PhaseStats, String> cell) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-25s", label));
    for (PhaseStats p : phases) {
      sb.append(String.format(Locale.ROOT, "  %-" + CELL + "s", cell.apply(p)));
    }
    out.println(sb.toString().stripTrailing());
  }
}
