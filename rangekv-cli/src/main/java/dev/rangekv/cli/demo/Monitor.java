package dev.rangekv.cli.demo;

import dev.rangekv.cli.admin.MetaViews;
import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The demo's live view: once per tick it drains the writers' window, asks the meta range for the
 * ranges (with stats) and the events logged since the last tick, prints one status line and the new
 * events, and adds everything to the current phase's {@link PhaseStats}. Runs on one thread.
 */
final class Monitor {
  private static final int EVENT_LINE_CHARS = 220;

  private final MetaCalls meta;
  private final Writers writers;
  private final PrintWriter out;
  private final List<String> nodeIds;
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private long lastSeq;

  Monitor(MetaCalls meta, Writers writers, PrintWriter out, List<String> nodeIds) {
    this.meta = meta;
    this.writers = writers;
    this.out = out;
    this.nodeIds = List.copyOf(nodeIds);
  }

  /**
   * One tick of {@code tickSeconds} in {@code stats}' phase, {@code elapsed} seconds into it. An alert
   * naming the other phase's table counts for that phase ({@code byPhase}): the detector's window
   * reaches back over the phase switch, and the summary compares key designs.
   */
  void tick(PhaseStats stats, Map<Phase, PhaseStats> byPhase, double tickSeconds, double elapsed) {
    Map<Long, Long> window = writers.drainWindow();
    stats.tick(tickSeconds, window);
    stats.cpu(os.getProcessCpuLoad(), tickSeconds);
    long writes = window.values().stream().mapToLong(Long::longValue).sum();
    long hottest = window.values().stream().mapToLong(Long::longValue).max().orElse(0);
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "[%s %3.0fs] %,7.0f writes/s  ranges written %d",
        stats.phase().shortName(), elapsed, writes / tickSeconds, window.size()));
    line.append(String.format(Locale.ROOT, "  hottest %3.0f%%", writes == 0 ? 0.0 : 100.0 * hottest / writes));
    List<EventProto> events = List.of();
    try {
      List<RangeStatsProto> ranges =
          meta.read(s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance())).getRangesList();
      events = meta.read(s -> s.listEvents(ListEventsRequest.newBuilder().setAfterSeq(lastSeq).build())).getEventsList();
      String perNode = perNode(ranges);
      stats.map(ranges.size(), perNode.strip());
      line.append("  | ranges ").append(ranges.size()).append(" |").append(perNode);
    } catch (CliException e) {
      line.append("  | meta range not answering: ").append(e.getMessage());
    }
    if (writers.errors() > 0) {
      line.append("  | failed writes ").append(writers.errors());
    }
    int mergesDeclined = 0;
    for (EventProto e : events) {
      mergesDeclined += e.getKind().equals("merge-declined") ? 1 : 0;
    }
    if (mergesDeclined > 0) {
      line.append("  | merges declined ").append(mergesDeclined); // every tick re-evaluates them: counted, not listed
    }
    out.println(line);
    for (EventProto e : events) {
      lastSeq = Math.max(lastSeq, e.getSeq());
      PhaseStats owner = stats;
      if (e.getKind().startsWith("alert-")) {
        for (Phase p : Phase.values()) {
          if (p.mentionedIn(e.getDetail()) && byPhase.containsKey(p)) {
            owner = byPhase.get(p);
          }
        }
      }
      owner.event(e.getKind());
      if (!e.getKind().equals("merge-declined")) {
        out.println("    event " + MetaViews.shortEventLine(e, EVENT_LINE_CHARS));
      }
    }
    out.flush();
  }

  /** Skips events logged before the workload started (bootstrap, joins) in the phase counts. */
  void skipEarlierEvents() {
    try {
      List<EventProto> events = meta.read(s -> s.listEvents(ListEventsRequest.getDefaultInstance())).getEventsList();
      for (EventProto e : events) {
        lastSeq = Math.max(lastSeq, e.getSeq());
      }
    } catch (CliException e) {
      out.println("(meta range not answering yet: " + e.getMessage() + ")");
    }
  }

  /** {@code n1 5r/2L 812qps} per node: replicas, leaderships, and the load of the ranges it leads. */
  private String perNode(List<RangeStatsProto> ranges) {
    Map<String, int[]> counts = new TreeMap<>();
    Map<String, Double> qps = new TreeMap<>();
    for (String n : nodeIds) {
      counts.put(n, new int[2]);
      qps.put(n, 0.0);
    }
    for (RangeStatsProto r : ranges) {
      for (ReplicaProto rep : r.getRange().getReplicasList()) {
        counts.computeIfAbsent(rep.getNodeId(), k -> new int[2])[0]++;
      }
      if (!r.getLeaderNodeId().isEmpty()) {
        counts.computeIfAbsent(r.getLeaderNodeId(), k -> new int[2])[1]++;
        qps.merge(r.getLeaderNodeId(), r.getReadQps() + r.getWriteQps(), Double::sum);
      }
    }
    StringBuilder sb = new StringBuilder();
    counts.forEach((node, c) -> sb.append(String.format(Locale.ROOT, " %s %dr/%dL %sqps", node, c[0], c[1],
        MetaViews.qps(qps.getOrDefault(node, 0.0)))));
    return sb.toString();
  }
}
